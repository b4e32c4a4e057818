import { readFileSync } from "node:fs";
import { z } from "zod";
import { EXIT_STATUSES } from "../agent/trajectory-types.js";
import { issuesText, shownValue } from "../util/schema-text.js";

/**
 * The schema of `DIR/run.json` (contract: README.md "Outputs"), whose one writer is `RunRecord`
 * (src/batch/run-record.ts: its `RunJson` type is checked against this schema there). It is read by
 * the batch on resume, by report, compare, inspect, eval's scope, `--like` and the run settings of select,
 * all through `readRunJson`. Fields a patchloop of another version may not have written are
 * optional; a field of `info` of the wrong type is read as absent (each reader has a default).
 */

const count = z.number();

/**
 * An instance's line (`instances[id]`), or an attempt's (`attempts["<id>/attempt-<k>"]`): the
 * outcome's fields (`recordOf`), and what only run.json records of it.
 */
export const InstanceLineSchema = z.looseObject({
  exit_status: z.enum(EXIT_STATUSES),
  exit_message: z.string().optional(),
  api_calls: count.optional(),
  cost: count.optional(),
  prompt_tokens: count.optional(),
  completion_tokens: count.optional(),
  seconds: count.optional(),
  infra_retries: count.optional(),
  infrastructure: z.boolean().optional(),
  model_error_runs: count.optional(),
  earlier_calls: count.optional(),
  earlier_cost: count.optional(),
  standing_attempt: z.number().int().min(1).optional(),
  /** The queue's delivery whose result the line holds (a remote run's); `attempt` in an older patchloop's file. */
  delivery: z.string().optional(),
});
export type InstanceLine = z.infer<typeof InstanceLineSchema>;

/** A field of `info`: its value when it has this type, else absent. */
const field = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const text = field(z.string());

/** `info`: how the run was started (src/cli/swebench.ts writes it). Unknown keys are kept. */
export const RunInfoSchema = z.looseObject({
  argv: field(z.array(z.string())),
  cwd: text,
  config_sources: field(z.array(z.string())),
  dataset: field(z.looseObject({ subset: z.string(), split: field(z.string().nullable()) })),
  selection: field(
    z.looseObject({
      slice: text,
      filter: text,
      shuffle: field(z.boolean()),
      instance_ids: field(z.array(z.unknown())),
    }),
  ),
  machine: field(z.looseObject({ repos_dir: text, python: text, specs: text })),
  earlier_configs: field(z.array(z.object({ started_at: z.string().nullable(), config: z.unknown() }))),
  reproduce: z.unknown().optional(),
});
export type RunInfo = z.infer<typeof RunInfoSchema>;

const topShape = {
  run_format: z.string().optional(),
  state: z.string().optional(),
  started_at: z.string().optional(),
  ended_at: z.string().nullable().optional(),
  stopped_by: z.unknown().optional(),
  versions: z.record(z.string(), z.string()).optional(),
  config: z.unknown().optional(),
  info: RunInfoSchema.optional(),
  selected: count.optional(),
  skipped: count.optional(),
  instances: z.record(z.string(), z.unknown()).optional(),
  attempts: z.record(z.string(), z.unknown()).optional(),
  stopped_attempts: z.record(z.string(), z.unknown()).optional(),
  replicas: z.unknown().optional(),
  /** The model's name, at the top level of an older patchloop's run.json. */
  model: z.string().optional().catch(undefined),
};

/** run.json's top level (unknown keys kept); `instances`, `attempts` and `stopped_attempts` are checked entry by entry. */
const RunJsonTopSchema = z.looseObject(topShape);
/** The named fields of the top level (for the types: a loose object's type has an index signature). */
const namedTop = z.object(topShape);
/** run.json's top-level fields as the schema reads them. */
export type RunJsonFields = z.infer<typeof namedTop>;

/** run.json as read: every part present (empty when the file has none), each line checked. */
export type RunJsonDoc = Omit<RunJsonFields, "info" | "instances" | "attempts" | "stopped_attempts"> & {
  info: RunInfo;
  /** Absent when the file has none (an older or damaged file). */
  instances?: Record<string, InstanceLine>;
  /** Absent when the file has none (a run with one attempt per instance). */
  attempts?: Record<string, InstanceLine>;
  stopped_attempts?: Record<string, string>;
};

/** What `readRunJson` found: the file checked (lines that are not lines left out, each a problem), or why not. */
export type RunJsonRead =
  | { ok: true; run: RunJsonDoc; problems: string[] }
  | { ok: false; missing: boolean; problem: string };

const FORM = "expected run.json as patchloop writes it ({run_format, state, config, info, instances, ...})";
const LINE_FORM = "expected {exit_status, api_calls, cost, ...} as patchloop writes it; the line is left out";

/**
 * A line as this patchloop names its fields: an older patchloop wrote a remote result's queue
 * delivery (`delivery`) under `attempt`; a text there is moved to `delivery` (kept when the line has
 * one). Anything else is left as it is.
 */
function renamedFields(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("attempt" in value)) return value;
  if (typeof value.attempt !== "string") return value;
  const { attempt, ...rest } = value;
  return "delivery" in rest ? rest : { ...rest, delivery: attempt };
}

function lines(
  path: string,
  part: string,
  entries: Record<string, unknown>,
  problems: string[],
): Record<string, InstanceLine> {
  const out: Record<string, InstanceLine> = {};
  for (const [key, value] of Object.entries(entries)) {
    const line = InstanceLineSchema.safeParse(renamedFields(value));
    if (line.success) out[key] = line.data;
    else
      problems.push(
        `${path}: ${part}[${JSON.stringify(key)}] ${issuesText(line.error)}; received ${shownValue(value)}; ${LINE_FORM}`,
      );
  }
  return out;
}

/** run.json's text checked (`path` names it in problems); see `readRunJson`. */
export function parseRunJson(text: string, path: string): RunJsonRead {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, missing: false, problem: `${path} is not valid JSON (${(err as Error).message})` };
  }
  const top = RunJsonTopSchema.safeParse(doc);
  if (!top.success) {
    const got = doc === null ? "null" : Array.isArray(doc) ? "a list" : typeof doc;
    return {
      ok: false,
      missing: false,
      problem: `${path}: ${typeof doc === "object" && doc !== null && !Array.isArray(doc) ? issuesText(top.error) : `got ${got}`}; ${FORM}`,
    };
  }
  const problems: string[] = [];
  const { info, instances, attempts, stopped_attempts, ...rest } = top.data;
  const stopped: Record<string, string> = {};
  for (const [key, why] of Object.entries(stopped_attempts ?? {}))
    if (typeof why === "string") stopped[key] = why;
    else
      problems.push(
        `${path}: stopped_attempts[${JSON.stringify(key)}] is not a text (received ${shownValue(why)}); left out`,
      );
  const run: RunJsonDoc = {
    ...rest,
    info: info ?? {},
    ...(instances ? { instances: lines(path, "instances", instances, problems) } : {}),
    ...(attempts ? { attempts: lines(path, "attempts", attempts, problems) } : {}),
    ...(stopped_attempts ? { stopped_attempts: stopped } : {}),
  };
  return { ok: true, run, problems };
}

/**
 * Reads `path` (a run folder's run.json) through its schema: the file, with the lines of
 * `instances` and `attempts` that are not such lines left out (each a problem naming the file,
 * the line and what is wrong), or why it cannot be read (`missing` when there is no file). Never throws.
 */
export function readRunJson(path: string): RunJsonRead {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, problem: `cannot read ${path} (${(err as Error).message})` };
  }
  return parseRunJson(text, path);
}
