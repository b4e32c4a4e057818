import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type CandidateLine,
  parseSelectionJsonl,
  type SelectionLine,
  type SelectionLines,
} from "../select/selection-file.js";

/** Largest selection.jsonl read (bytes); a bigger one is a problem line, not read. */
const MAX_SELECTION_BYTES = 50 * 1024 * 1024;
/** Model and test text from the file is cut to this many characters for the page. */
const MAX_TEXT = 4000;

const clip = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)} […]` : s);

/** A line with its model and test text cut to MAX_TEXT characters for the page. */
function clipped(line: SelectionLine): SelectionLine {
  return {
    ...line,
    reason: clip(line.reason),
    steps: line.steps.map(clip),
    problems: line.problems.map(clip),
    candidates: line.candidates.map((c) => ({
      ...c,
      ...(c.dropped !== undefined ? { dropped: clip(c.dropped) } : {}),
      ...(c.regression
        ? {
            regression: {
              ...c.regression,
              broke: c.regression.broke.map(clip),
              ...(c.regression.error !== undefined ? { error: clip(c.regression.error) } : {}),
            },
          }
        : {}),
      ...(c.reproduction?.error !== undefined
        ? { reproduction: { ...c.reproduction, error: clip(c.reproduction.error) } }
        : {}),
    })),
    ...(line.judge
      ? {
          judge: {
            ...line.judge,
            answer: clip(line.judge.answer),
            ...(line.judge.problem !== undefined ? { problem: clip(line.judge.problem) } : {}),
          },
        }
      : {}),
  };
}

export type { CandidateLine, SelectionLine };

/** The lines of DIR/selection.jsonl by instance id (a later line for an id wins), and what could not be read. */
export type SelectionFile = SelectionLines;

/** Reads `root/selection.jsonl`; an absent file is an empty result, a bad line a problem naming it. */
export async function readSelectionFile(root: string): Promise<SelectionFile> {
  const out: SelectionFile = { byId: new Map(), problems: [] };
  const path = join(root, "selection.jsonl");
  let raw: string;
  try {
    const info = await stat(path);
    if (info.size > MAX_SELECTION_BYTES) {
      out.problems.push(
        `selection.jsonl: ${info.size} bytes, more than the ${MAX_SELECTION_BYTES} the viewer reads; not shown`,
      );
      return out;
    }
    raw = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") out.problems.push(`selection.jsonl: cannot be read (${(err as Error).message})`);
    return out;
  }
  const lines = parseSelectionJsonl(raw);
  out.problems.push(...lines.problems);
  for (const [id, line] of lines.byId) out.byId.set(id, clipped(line));
  return out;
}

/** The attempt number a candidate's `source` names (`attempt-<k>`), else null (src/select/run-folder-candidates.ts). */
export function attemptOfSource(source: string): number | null {
  const m = /^attempt-([1-9]\d{0,5})$/.exec(source);
  return m ? Number(m[1]) : null;
}
