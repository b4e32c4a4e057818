import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { ClippedJsonError, readClippedJson } from "./clipped-json.js";
import { asRecord, asString, type JsonRecord } from "./json-read.js";
import { normalizeChat } from "./normalize-chat.js";
import { normalizeSweAgent } from "./normalize-sweagent.js";
import type { TrajectoryView } from "./view/view-model.js";

/** A file that is not a trajectory in any format the viewer reads; the message says what it got. */
export class TrajectoryFormatError extends Error {
  override name = "TrajectoryFormatError";
}

const KNOWN =
  'expected a patchloop trajectory ({trajectory_format: "patchloop-1", info, messages}), ' +
  "a mini-swe-agent .traj.json (a list of chat messages, or {info, messages, trajectory_format}) " +
  "or a SWE-agent .traj ({trajectory, history, info})";

function describe(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} items`;
  const rec = asRecord(value);
  if (rec) return `an object with keys ${Object.keys(rec).slice(0, 8).join(", ") || "(none)"}`;
  return value === null ? "null" : `a ${typeof value}`;
}

function messagesOf(list: unknown[], where: string): JsonRecord[] {
  return list.map((m, i) => {
    const rec = asRecord(m);
    if (!rec || typeof rec.role !== "string") {
      throw new TrajectoryFormatError(`${where}: message ${i} has no "role" (got ${describe(m)}); ${KNOWN}`);
    }
    return rec;
  });
}

/** The instance id a trajectory file's name implies: `<id>.traj.json` / `<id>.traj` / `<id>.json`. */
export function idFromFileName(fileName: string): string {
  return basename(fileName).replace(/(\.traj\.json|\.traj|\.json)$/, "");
}

/**
 * Normalises parsed trajectory JSON of any supported format into a TrajectoryView. `fileName` names
 * the file in errors and supplies the instance id when the file records none. Throws
 * TrajectoryFormatError when the shape matches no format.
 */
export function normalizeTrajectory(doc: unknown, fileName: string): TrajectoryView {
  const view = detectAndNormalize(doc, fileName);
  view.instanceId ??= idFromFileName(fileName);
  return view;
}

function detectAndNormalize(doc: unknown, where: string): TrajectoryView {
  if (Array.isArray(doc)) {
    if (doc.length === 0) throw new TrajectoryFormatError(`${where}: the message list is empty; ${KNOWN}`);
    return normalizeChat("mini-swe-agent-list", null, messagesOf(doc, where));
  }
  const rec = asRecord(doc);
  if (!rec) throw new TrajectoryFormatError(`${where}: got ${describe(doc)}; ${KNOWN}`);
  const format = asString(rec.trajectory_format);
  if (format !== null && !/^(patchloop-1|mini-swe-agent-1(\.\d+)?)$/.test(format)) {
    throw new TrajectoryFormatError(`${where}: unknown trajectory_format "${format}"; ${KNOWN}`);
  }
  if (Array.isArray(rec.messages)) {
    const messages = messagesOf(rec.messages, where);
    const info = asRecord(rec.info);
    if (format === "patchloop-1") return normalizeChat("patchloop-1", info, messages);
    const minor = format?.startsWith("mini-swe-agent-1.") ?? false;
    return normalizeChat(minor ? "mini-swe-agent-1.1" : "mini-swe-agent-1", info, messages);
  }
  if (Array.isArray(rec.trajectory)) return normalizeSweAgent(rec);
  throw new TrajectoryFormatError(`${where}: got ${describe(doc)}; ${KNOWN}`);
}

/** Reads and normalises a trajectory file. Errors name the file and what was wrong with it. */
export async function loadTrajectoryFile(path: string): Promise<TrajectoryView> {
  let doc: unknown;
  try {
    // Streamed and clipped (clipped-json.ts): a 100 MB trajectory is never held as text, and a
    // string of megabytes or a 100,000-deep value from model output cannot exhaust memory or stack.
    doc = await readClippedJson(path);
  } catch (err) {
    if (err instanceof ClippedJsonError) {
      const size = (await stat(path).catch(() => null))?.size ?? 0;
      throw new TrajectoryFormatError(`${path} is not valid JSON (${err.message}); ${size} bytes were read`);
    }
    throw new TrajectoryFormatError(`cannot read ${path}: ${(err as Error).message}`);
  }
  return normalizeTrajectory(doc, path);
}
