import { z } from "zod";
import { issuesText } from "../util/schema-text.js";
import type { SelectionRecord } from "./record.js";

/**
 * The schema of `DIR/selection.jsonl` (one `SelectionRecord` a line, record.ts; written by
 * select-all.ts), as its readers take it: the part they use, unknown keys ignored, so a newer file
 * with more fields still reads. Read by the batch's attempts report and by inspect, through
 * `parseSelectionJsonl`. The check at the end fails to compile when the writer's record no longer fits.
 */

/** One candidate of a line. */
export const CandidateLineSchema = z.object({
  index: z.number().int().nonnegative(),
  source: z.string(),
  status: z.string(),
  dropped: z.string().optional(),
  group: z.number().int().optional(),
  regression: z
    .object({
      tested: z.boolean(),
      broke: z.array(z.string()),
      kept: z.number(),
      error: z.string().optional(),
      timed_out: z.boolean().optional(),
    })
    .optional(),
  reproduction: z.object({ passed: z.number(), of: z.number(), error: z.string().optional() }).optional(),
});

/** One line: an instance, its candidates and why one was picked. */
export const SelectionLineSchema = z.object({
  instance_id: z.string().min(1),
  candidates: z.array(CandidateLineSchema),
  selected: z.number().int().nullable(),
  reason: z.string(),
  steps: z.array(z.string()).default([]),
  problems: z.array(z.string()).default([]),
  judge: z
    .object({
      offered: z.array(z.object({ number: z.number().int(), candidate: z.number().int() })),
      answer: z.string(),
      chose: z.number().int().optional(),
      problem: z.string().optional(),
    })
    .optional(),
});

export type SelectionLine = z.infer<typeof SelectionLineSchema>;
export type CandidateLine = z.infer<typeof CandidateLineSchema>;

/** The lines of a selection.jsonl by instance id (a later line for an id wins), and the lines that could not be read. */
export interface SelectionLines {
  byId: Map<string, SelectionLine>;
  problems: string[];
}

const EXPECTED =
  "expected one JSON object per line as `patchloop select` writes it ({instance_id, candidates, selected, reason, ...})";

/**
 * selection.jsonl's text checked line by line (`name` names the file in problems): each line that
 * is not a selection line (not JSON, a line cut short by a killed writer, a field of the wrong
 * type) is left out, with a problem naming the line, what is wrong and what was expected.
 */
export function parseSelectionJsonl(text: string, name = "selection.jsonl"): SelectionLines {
  const out: SelectionLines = { byId: new Map(), problems: [] };
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (err) {
      out.problems.push(`${name} line ${i + 1}: not valid JSON (${(err as Error).message}); ${EXPECTED}`);
      return;
    }
    const parsed = SelectionLineSchema.safeParse(doc);
    if (!parsed.success) {
      out.problems.push(`${name} line ${i + 1}: ${issuesText(parsed.error)}; ${EXPECTED}`);
      return;
    }
    out.byId.set(parsed.data.instance_id, parsed.data);
  });
  return out;
}

// What select-all.ts writes, this reads: a SelectionRecord is a line the schema accepts.
type Readable<W, R> = [W] extends [R] ? true : false;
const recordReadable: Readable<SelectionRecord, z.input<typeof SelectionLineSchema>> = true;
void recordReadable;
