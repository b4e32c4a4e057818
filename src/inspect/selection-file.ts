import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** Largest selection.jsonl read (bytes); a bigger one is a problem line, not read. */
const MAX_SELECTION_BYTES = 50 * 1024 * 1024;
/** Model and test text from the file is cut to this many characters for the page. */
const MAX_TEXT = 4000;

const text = z.string().transform((s) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)} […]` : s));

/**
 * The part of a `patchloop select` line (src/select/record.ts, SelectionRecord) the viewer shows.
 * Unknown keys are ignored, so a newer file with more fields still reads.
 */
const CandidateLine = z.object({
  index: z.number().int().nonnegative(),
  source: z.string(),
  status: z.string(),
  dropped: text.optional(),
  group: z.number().int().optional(),
  regression: z
    .object({
      tested: z.boolean(),
      broke: z.array(text),
      kept: z.number(),
      error: text.optional(),
      timed_out: z.boolean().optional(),
    })
    .optional(),
  reproduction: z.object({ passed: z.number(), of: z.number(), error: text.optional() }).optional(),
});

const SelectionLine = z.object({
  instance_id: z.string().min(1),
  candidates: z.array(CandidateLine),
  selected: z.number().int().nullable(),
  reason: text,
  steps: z.array(text).default([]),
  problems: z.array(text).default([]),
  judge: z
    .object({
      offered: z.array(z.object({ number: z.number().int(), candidate: z.number().int() })),
      answer: text,
      chose: z.number().int().optional(),
      problem: text.optional(),
    })
    .optional(),
});

export type SelectionLine = z.infer<typeof SelectionLine>;
export type CandidateLine = z.infer<typeof CandidateLine>;

/** The lines of DIR/selection.jsonl by instance id (a later line for an id wins), and what could not be read. */
export interface SelectionFile {
  byId: Map<string, SelectionLine>;
  problems: string[];
}

const EXPECTED =
  "expected one JSON object per line as `patchloop select` writes it ({instance_id, candidates, selected, reason, ...})";

function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`)
    .join("; ");
}

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
  raw.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (err) {
      out.problems.push(
        `selection.jsonl line ${i + 1}: not valid JSON (${(err as Error).message}); ${EXPECTED}`,
      );
      return;
    }
    const parsed = SelectionLine.safeParse(doc);
    if (!parsed.success) {
      out.problems.push(`selection.jsonl line ${i + 1}: ${issuesText(parsed.error)}; ${EXPECTED}`);
      return;
    }
    out.byId.set(parsed.data.instance_id, parsed.data);
  });
  return out;
}

/** The attempt number a candidate's `source` names (`attempt-<k>`), else null (src/select/run-folder-candidates.ts). */
export function attemptOfSource(source: string): number | null {
  const m = /^attempt-([1-9]\d{0,5})$/.exec(source);
  return m ? Number(m[1]) : null;
}
