import { readFile } from "node:fs/promises";
import { z } from "zod";
import { JournalLineSchema, parseTrajectory } from "./trajectory-schema.js";
import type { Trajectory } from "./trajectory-types.js";

/**
 * The journal of a long run: `PATH.journal` beside the trajectory file `PATH` (trajectory.ts).
 * One JSON line per save since `PATH` was last written: `{"base": N, "messages": [...], "info":
 * {...}}`, where `base` is how many messages came before this line's (the line follows on from
 * the file when `base` equals the file's message count, then from the line before it). Lines are
 * only ever appended; a kill -9 can leave the last one half-written. The journal is removed each
 * time `PATH` is rewritten, and at the end of the task.
 */
export function journalPathOf(trajectoryPath: string): string {
  return `${trajectoryPath}.journal`;
}

/** A line of the journal, checked (trajectory-schema.ts); null when it is not one (half-written). */
function asLine(value: unknown): z.infer<typeof JournalLineSchema> | null {
  const line = JournalLineSchema.safeParse(value);
  return line.success ? line.data : null;
}

/** What `applyJournal` did: lines applied, and lines it could not use (half-written, or not following on). */
export interface JournalReport {
  applied: number;
  dropped: number;
}

/**
 * Applies a journal's text to the trajectory read from its file, in place. Lines whose messages the
 * file already holds (a journal left by a kill between the rewrite and its removal) are skipped;
 * reading stops at the first line that does not parse or does not follow on (only the last line
 * can be half-written).
 */
export function applyJournal(
  trajectory: { info: unknown; messages: unknown[] },
  text: string,
): JournalReport {
  const report: JournalReport = { applied: 0, dropped: 0 };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === "") continue;
    let line: z.infer<typeof JournalLineSchema> | null = null;
    try {
      line = asLine(JSON.parse(lines[i]));
    } catch {
      line = null;
    }
    const have = trajectory.messages.length;
    if (line && line.base + line.messages.length <= have) continue;
    if (!line || line.base !== have) {
      report.dropped = lines.slice(i).filter((l) => l !== "").length;
      break;
    }
    trajectory.messages.push(...line.messages);
    trajectory.info = line.info;
    report.applied++;
  }
  return report;
}

/** What the journal applies to: the JSON of a trajectory file with a list of messages. */
const JournalTarget = z.looseObject({ messages: z.array(z.unknown()), info: z.unknown() });

/**
 * Reads a trajectory file's JSON, of any tool's format, as a killed or running patchloop task left
 * it: the file, then its journal when there is one (only a patchloop task leaves one). Throws when
 * the file cannot be read or is not JSON (naming the path).
 */
export async function readTrajectoryJson(path: string): Promise<{ doc: unknown; journal: JournalReport }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message})`);
  }
  let journal = "";
  try {
    journal = await readFile(journalPathOf(path), "utf8");
  } catch {
    return { doc, journal: { applied: 0, dropped: 0 } };
  }
  const target = JournalTarget.safeParse(doc);
  if (!target.success) return { doc, journal: { applied: 0, dropped: 0 } };
  // the journal's lines are checked messages and info; the file's own are kept as they are
  const merged = { info: target.data.info, messages: target.data.messages };
  const report = applyJournal(merged, journal);
  return { doc: { ...target.data, ...merged }, journal: report };
}

/**
 * Reads a patchloop trajectory in full (the file, then its journal: `readTrajectoryJson`), checked
 * against its schema (trajectory-schema.ts). Throws when the file cannot be read, is not JSON or
 * is not a patchloop-1 trajectory, naming the path and what is wrong.
 */
export async function readTrajectoryFile(
  path: string,
): Promise<{ trajectory: Trajectory; journal: JournalReport }> {
  const { doc, journal } = await readTrajectoryJson(path);
  const parsed = parseTrajectory(doc, path);
  if (!parsed.ok) throw new Error(parsed.problem);
  return { trajectory: parsed.trajectory, journal };
}
