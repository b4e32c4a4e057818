import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { parsePredsJson } from "../run-folder/preds-file.js";
import { parseRunJson, type RunJsonDoc } from "../run-folder/run-json.js";
import { asRecord, asString } from "./json-read.js";
import type { RunTotals, StatsView } from "./view/view-model.js";

/** What the run's own bookkeeping files say (each part empty when its file is absent). */
export interface RunFiles {
  /** preds.json: instance id → model_patch. */
  patches: Map<string, string>;
  /** exit_statuses.yaml: instance id → exit status. */
  exitStatuses: Map<string, string>;
  /** Scalar top-level fields of run.json, as label → text. */
  facts: Record<string, string>;
  /** The run's model, config and totals over every invocation; null without run.json. */
  totals: RunTotals | null;
  /** run.json `instances[id].standing_attempt`: the attempt whose patch preds.json holds. */
  standingAttempts: Map<string, number>;
  /** run.json `attempts["<id>/attempt-<k>"]`: what each attempt ended with, by id, then k. */
  attemptRecords: Map<string, Map<number, AttemptRecord>>;
  problems: string[];
}

/** What run.json records of one attempt: its status, model calls and USD. */
export interface AttemptRecord extends Pick<StatsView, "api_calls" | "cost"> {
  exitStatus: string | null;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function readPreds(text: string, files: RunFiles): void {
  const preds = parsePredsJson(text, "preds.json");
  if ("error" in preds) {
    throw new Error(
      preds.error === "not-json"
        ? preds.message
        : "expected an object {instance_id: {instance_id, model_name_or_path, model_patch}}",
    );
  }
  // tolerant: an entry without a patch shows none, one without model_name_or_path still shows its patch
  for (const id of Object.keys(preds.raw)) files.patches.set(id, preds.patches[id] ?? "");
}

function readExitStatuses(text: string, files: RunFiles): void {
  const doc = asRecord(parseYaml(text));
  if (!doc) throw new Error("expected a mapping exit status -> [instance ids]");
  for (const [status, ids] of Object.entries(doc)) {
    if (!Array.isArray(ids)) continue;
    for (const id of ids) if (typeof id === "string") files.exitStatuses.set(id, status);
  }
}

const MAX_FACT_CHARS = 200;

/**
 * Model calls and cost over every instance run.json holds, earlier attempts of re-run instances
 * included (`earlier_calls`, `earlier_cost`): what all invocations of the folder spent.
 */
function totalsOf(doc: RunJsonDoc): RunTotals {
  const config = asRecord(doc.config);
  const instances = Object.values(doc.instances ?? {});
  let calls: number | null = null;
  let cost: number | null = null;
  for (const r of instances) {
    const c = r.api_calls ?? null;
    const d = r.cost ?? null;
    if (c !== null || r.earlier_calls !== undefined) calls = (calls ?? 0) + (c ?? 0) + (r.earlier_calls ?? 0);
    if (d !== null || r.earlier_cost !== undefined) cost = (cost ?? 0) + (d ?? 0) + (r.earlier_cost ?? 0);
  }
  return {
    model: asString(asRecord(config?.model)?.model_name) || doc.model || null,
    configSources: doc.info.config_sources ?? [],
    config: doc.config ?? null,
    api_calls: calls,
    cost,
    instances: instances.length,
  };
}

function readRun(text: string, files: RunFiles): void {
  const read = parseRunJson(text, "run.json");
  if (!read.ok) {
    files.problems.push(read.problem);
    return;
  }
  const doc = read.run;
  files.problems.push(...read.problems);
  files.totals = totalsOf(doc);
  for (const [id, entry] of Object.entries(doc.instances ?? {})) {
    if (entry.standing_attempt !== undefined) files.standingAttempts.set(id, entry.standing_attempt);
  }
  for (const [key, rec] of Object.entries(doc.attempts ?? {})) {
    const m = /^(.+)\/attempt-([1-9]\d{0,5})$/.exec(key);
    if (!m?.[1]) continue;
    const byK = files.attemptRecords.get(m[1]) ?? new Map<number, AttemptRecord>();
    byK.set(Number(m[2]), {
      exitStatus: rec.exit_status,
      api_calls: rec.api_calls ?? null,
      cost: rec.cost ?? null,
    });
    files.attemptRecords.set(m[1], byK);
  }
  for (const [key, value] of Object.entries(doc)) {
    if (Object.keys(files.facts).length >= 16) break;
    const isScalar = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
    if (isScalar && String(value).length <= MAX_FACT_CHARS) files.facts[key] = String(value);
  }
}

/** Reads preds.json, exit_statuses.yaml and run.json from a run folder; a broken file is a problem line. */
export async function readRunFiles(root: string): Promise<RunFiles> {
  const files: RunFiles = {
    patches: new Map(),
    exitStatuses: new Map(),
    facts: {},
    totals: null,
    standingAttempts: new Map(),
    attemptRecords: new Map(),
    problems: [],
  };
  const readers: Array<[string, (text: string, files: RunFiles) => void]> = [
    ["preds.json", readPreds],
    ["exit_statuses.yaml", readExitStatuses],
    ["run.json", readRun],
  ];
  for (const [name, read] of readers) {
    try {
      const text = await readOptional(join(root, name));
      if (text !== null) read(text, files);
    } catch (err) {
      files.problems.push(`${name}: ${(err as Error).message}`);
    }
  }
  return files;
}
