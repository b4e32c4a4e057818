import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { infoSummary } from "../agent/trajectory-schema.js";
import { repositoryOf } from "../compare/compare-runs.js";
import { findRunSummary } from "../compare/load-run.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { diffFiles } from "../grading/patch-files.js";
import { type PredsJson, readPredsJson } from "../run-folder/preds-file.js";
import { type InstanceLine, readRunJson } from "../run-folder/run-json.js";
import { categorize, type EndCategory, type GradeFacts } from "./categories.js";

/** What the report knows of one instance. */
export interface InstanceFacts {
  instance_id: string;
  repository: string;
  /** The dataset's difficulty label, where it has one. */
  difficulty: string | null;
  exit_status: string | null;
  exit_message: string;
  /** Model calls (one per step). */
  steps: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  /** Seconds from start to end (null when only the trajectory is known and it has no timing). */
  seconds: number | null;
  grade: GradeFacts | null;
  category: EndCategory;
  /** Files the patch in preds.json touches. */
  patch_files: string[];
  /** Files the gold patch touches (null: the dataset row is not at hand). */
  gold_files: string[] | null;
}

/** An `eval` of a run folder with attempts (`<eval run>/attempts.json`), in total. */
export interface AttemptsTotals {
  instances: number;
  first_attempt_resolved: number;
  any_attempt_resolved: number;
  selected_resolved: number;
  /** Instances whose preds.json patch a selection chose (the others hold their standing attempt); null when attempts.json does not say. */
  selected: number | null;
}

/** Everything `report` read from a run folder. */
export interface CollectedRun {
  dir: string;
  /** The dataset run.json names (`lite`, a file path...), and its split. */
  dataset: { name: string | null; split: string | null; rows: boolean; note: string | null };
  /** The eval summary read (null: the folder was not graded). */
  eval_summary: string | null;
  /** What the eval summary says its denominator is (patchloop's summaries). */
  eval_scope: string | null;
  instances: InstanceFacts[];
  attempts: AttemptsTotals | null;
  notes: string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * preds.json through its reader, tolerant as older folders need: none when absent or unreadable,
 * an entry's patch wherever it has one (`patches`), whatever else it lacks.
 */
function readPreds(path: string): Pick<PredsJson, "patches" | "raw"> {
  try {
    return readPredsJson(path);
  } catch {
    return { patches: {}, raw: {} };
  }
}

/** The files a patch touches (the new name; the old one for a deletion), without a/ b/. */
export function touchedFiles(patch: string): string[] {
  const out = new Set<string>();
  for (const f of diffFiles(patch)) {
    const name = f.target && f.target !== "/dev/null" ? f.target : f.source;
    if (name && name !== "/dev/null") out.add(name.replace(/^[ab]\//, ""));
  }
  return [...out].sort();
}

/** `report.json` files under `dir`, at most `depth` folders down, leaving out the runs that grade attempts. */
function reportFiles(dir: string, depth: number): string[] {
  if (depth < 0 || !existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name === "report.json") out.push(join(dir, e.name));
    else if (e.isDirectory() && !/-attempt-\d+$/.test(e.name))
      out.push(...reportFiles(join(dir, e.name), depth - 1));
  }
  return out.sort();
}

/** Per instance: what grading found, from the summary's lists and each instance's report.json. */
function readGrades(dir: string): {
  grades: Map<string, GradeFacts>;
  summary: string | null;
  scope: string | null;
  attempts: AttemptsTotals | null;
} {
  const found = findRunSummary(dir);
  const grades = new Map<string, GradeFacts>();
  if (!found) return { grades, summary: null, scope: null, attempts: null };
  const doc = readJsonFile(found.path);
  if (!isObject(doc)) return { grades, summary: found.path, scope: null, attempts: null };
  const own = isObject(doc.patchloop) ? doc.patchloop : null;
  const set = (ids: unknown, outcome: GradeFacts["outcome"]) => {
    for (const id of strings(ids))
      grades.set(id, { outcome, fail_to_pass_failing: null, pass_to_pass_failing: null });
  };
  set(doc.unresolved_ids, "unresolved");
  set(own ? [] : doc.error_ids, "infrastructure");
  set(doc.empty_patch_ids, "empty_patch");
  if (own) {
    set(own.no_results_ids, "no_results");
    set(own.patch_apply_failed_ids, "patch_apply_failed");
    set(own.timeout_ids, "timeout");
    set(own.environment_mismatch_ids, "environment_mismatch");
    set(own.infrastructure_error_ids, "infrastructure");
  }
  set(doc.infra_failure_ids, "infrastructure");
  set(doc.resolved_ids, "resolved");
  const runDir = dirname(found.path);
  // A per-instance report.json beats the summary (as in the viewer): the harness's layout
  // (<run>/<model>/<id>/report.json) and patchloop's (<run>/<id>/report.json) alike.
  for (const file of reportFiles(join(dir, "eval"), 4)) {
    const report = readJsonFile(file);
    if (!isObject(report)) continue;
    for (const [id, entry] of Object.entries(report)) {
      if (!isObject(entry) || typeof entry.resolved !== "boolean") continue;
      const status = isObject(entry.tests_status) ? entry.tests_status : null;
      const failing = (key: string) => {
        const part = status?.[key];
        return isObject(part) ? strings(part.failure).length : 0;
      };
      grades.set(id, {
        outcome: entry.resolved ? "resolved" : status ? "unresolved" : "no_results",
        fail_to_pass_failing: status ? failing("FAIL_TO_PASS") : null,
        pass_to_pass_failing: status ? failing("PASS_TO_PASS") : null,
      });
    }
  }
  const scope =
    own && isObject(own.scope) && typeof own.scope.description === "string" ? own.scope.description : null;
  const att = readJsonFile(join(runDir, "attempts.json"));
  const total = isObject(att) && isObject(att.total) ? att.total : null;
  const attempts = total
    ? {
        instances: num(total.instances),
        first_attempt_resolved: num(total.first_attempt_resolved),
        any_attempt_resolved: num(total.any_attempt_resolved),
        selected_resolved: num(total.selected_resolved),
        selected: typeof total.selected === "number" ? total.selected : null,
      }
    : null;
  return { grades, summary: found.path, scope, attempts };
}

/** Per instance, what the agent's run gave: run.json's instances, else each `<id>/<id>.traj.json`. */
function readOutcomes(dir: string, notes: string[]): Map<string, Json> {
  const out = new Map<string, Json>();
  const read = readRunJson(join(dir, "run.json"));
  if (read.ok && read.run.instances) {
    // tolerant as older folders need: a line's fields are optional, one that is not a line is left out
    const attempts = read.run.attempts ?? {};
    for (const [id, rec] of Object.entries(read.run.instances))
      out.set(id, withAttemptSums(id, rec, attempts));
    return out;
  }
  for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
    if (!entry.isDirectory()) continue;
    const traj = readJsonFile(join(dir, entry.name, `${entry.name}.traj.json`));
    if (!isObject(traj) || !isObject(traj.info)) continue;
    // tolerant, as older folders need: each field of the summary when it has the written type
    const info = infoSummary(traj);
    out.set(entry.name, {
      exit_status: info.exit_status ?? null,
      exit_message: info.exit_message ?? "",
      ...info.model_stats,
      ...(info.timing ? { seconds: info.timing.wall_seconds } : {}),
      ...(info.infrastructure ? { infrastructure: true } : {}),
    });
  }
  if (out.size) notes.push("no run.json: the figures come from the trajectories");
  return out;
}

const SUMMED = ["api_calls", "prompt_tokens", "completion_tokens", "cost", "seconds"] as const;

/**
 * An instance's line of a run with attempts holds the standing attempt's status and only some sums
 * (calls, cost): the tokens and seconds of every attempt (`attempts["<id>/attempt-<k>"]`) are
 * added up here for what the line lacks, so the report counts what all of its attempts used.
 */
function withAttemptSums(
  id: string,
  rec: Json & Record<string, unknown>,
  attempts: Record<string, InstanceLine>,
): Json {
  const mine = Object.entries(attempts)
    .filter(([key]) => key.startsWith(`${id}/attempt-`))
    .map(([, a]) => a);
  if (mine.length === 0) return rec;
  const sums: Record<string, number> = {};
  for (const key of SUMMED) {
    if (typeof rec[key] === "number") continue;
    const values = mine.map((a) => a[key]).filter((v): v is number => typeof v === "number");
    if (values.length) sums[key] = values.reduce((x, y) => x + y, 0);
  }
  return { ...rec, ...sums };
}

/** The dataset run.json names, or null. */
function recordedDataset(dir: string): { name: string | null; split: string | null } {
  const read = readRunJson(join(dir, "run.json"));
  const d = read.ok ? read.run.info.dataset : undefined;
  return { name: d?.subset ?? null, split: d?.split ?? null };
}

/** How the report gets dataset rows: the caller loads them (the CLI: `loadDataset`), or none. */
export type RowLoader = (name: string, split: string | null) => Promise<SwebenchInstance[]>;

/**
 * Reads a run folder for `report`: the agent's outcomes (run.json, else trajectories), preds.json,
 * the evaluation (DIR/eval/<run id>/: its summary, each report.json, attempts.json) and, through
 * `loadRows`, the dataset rows (for the gold patch's files and difficulty labels; `datasetOverride`
 * names another file). Nothing is written.
 */
export async function collectRun(
  dirArg: string,
  loadRows: RowLoader | null,
  datasetOverride?: string,
): Promise<CollectedRun> {
  const dir = resolve(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new Error(
      `${dirArg}: not a folder; pass a run folder (patchloop swebench -o DIR, or patchloop demo -o DIR)`,
    );
  const notes: string[] = [];
  const outcomes = readOutcomes(dir, notes);
  const preds = readPreds(join(dir, "preds.json"));
  const { grades, summary, scope, attempts } = readGrades(dir);
  const ids = [...new Set([...outcomes.keys(), ...Object.keys(preds.raw)])].sort();
  if (ids.length === 0)
    throw new Error(
      `${dirArg}: no run.json, preds.json or trajectories here; pass the folder a run wrote (-o DIR)`,
    );
  const recorded = recordedDataset(dir);
  const dataset = {
    name: datasetOverride ?? recorded.name,
    split: datasetOverride ? null : recorded.split,
    rows: false,
    note: null as string | null,
  };
  const rows = new Map<string, SwebenchInstance>();
  if (dataset.name && loadRows) {
    try {
      for (const row of await loadRows(dataset.name, dataset.split)) rows.set(row.instance_id, row);
      dataset.rows = true;
    } catch (err) {
      dataset.note = `the dataset could not be read (${(err as Error).message.split("\n")[0]}); pass --dataset FILE`;
    }
  } else if (!dataset.name)
    dataset.note = "run.json names no dataset (not a SWE-bench batch): no gold files or difficulty labels";
  const instances = ids.map((id): InstanceFacts => {
    const rec = outcomes.get(id) ?? {};
    const patch = preds.patches[id] ?? "";
    const row = rows.get(id);
    const grade = grades.get(id) ?? null;
    const exitStatus =
      typeof rec.exit_status === "string" ? rec.exit_status : outcomes.has(id) ? null : "Submitted";
    const exitMessage = typeof rec.exit_message === "string" ? rec.exit_message : "";
    const difficulty = row && typeof row.difficulty === "string" ? row.difficulty : null;
    return {
      instance_id: id,
      repository: row?.repo ?? repositoryOf(id),
      difficulty,
      exit_status: exitStatus,
      exit_message: exitMessage,
      steps: num(rec.api_calls),
      prompt_tokens: num(rec.prompt_tokens),
      completion_tokens: num(rec.completion_tokens),
      cost: num(rec.cost),
      seconds: typeof rec.seconds === "number" ? rec.seconds : null,
      grade,
      category: categorize({
        exit_status: exitStatus,
        exit_message: exitMessage,
        patch_empty: patch.trim() === "",
        infrastructure: rec.infrastructure === true,
        ...(grade ? { grade } : {}),
      }),
      patch_files: touchedFiles(patch),
      gold_files: row ? touchedFiles(row.patch) : null,
    };
  });
  return {
    dir,
    dataset,
    eval_summary: summary,
    eval_scope: scope,
    instances,
    attempts,
    notes,
  };
}
