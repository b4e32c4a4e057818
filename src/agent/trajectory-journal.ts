import { readFile } from "node:fs/promises";
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

interface JournalLine {
  base: number;
  messages: unknown[];
  info: Trajectory["info"];
}

function asLine(value: unknown): JournalLine | null {
  const v = value as Partial<JournalLine> | null;
  return v && typeof v === "object" && typeof v.base === "number" && Array.isArray(v.messages) && v.info
    ? (v as JournalLine)
    : null;
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
export function applyJournal(trajectory: Trajectory, text: string): JournalReport {
  const report: JournalReport = { applied: 0, dropped: 0 };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === "") continue;
    let line: JournalLine | null = null;
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
    trajectory.messages.push(...(line.messages as Trajectory["messages"]));
    trajectory.info = line.info;
    report.applied++;
  }
  return report;
}

/**
 * Reads a patchloop trajectory as a killed or running task left it: the file, then its journal
 * when there is one. Throws when the file cannot be read or is not JSON (naming the path).
 */
export async function readTrajectoryFile(
  path: string,
): Promise<{ trajectory: Trajectory; journal: JournalReport }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  let trajectory: Trajectory;
  try {
    trajectory = JSON.parse(text) as Trajectory;
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message})`);
  }
  let journal = "";
  try {
    journal = await readFile(journalPathOf(path), "utf8");
  } catch {
    return { trajectory, journal: { applied: 0, dropped: 0 } };
  }
  if (!Array.isArray(trajectory.messages)) return { trajectory, journal: { applied: 0, dropped: 0 } };
  return { trajectory, journal: applyJournal(trajectory, journal) };
}
