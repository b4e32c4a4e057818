import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { readRunJson } from "../run-folder/run-json.js";

/** What a RUN argument of `compare` was read as. */
export type RunKind =
  | "patchloop-run-folder"
  | "patchloop-eval-summary"
  | "harness-summary"
  | "resolved-list"
  | "verdict-map";

/** One run's verdicts, whatever file they came from. */
export interface RunVerdicts {
  /** Short name for tables and sentences (the folder or file name, made unique by `compare`). */
  name: string;
  /** The path as given. */
  source: string;
  kind: RunKind;
  /** Graded and resolved. */
  resolved: Set<string>;
  /** Graded and not resolved, or failed by the model's own doing (empty patch, patch that did not apply). */
  unresolved: Set<string>;
  /** Not graded for a reason outside the model's patch (environment, harness, no logs): id -> reason. */
  infrastructure: Map<string, string>;
  /**
   * The file lists only resolved instances (SWE-bench/experiments' results.json): every instance
   * another run evaluated counts as evaluated here, unresolved unless listed.
   */
  resolvedOnly: boolean;
  /** Things the reader should know about how the file was read. */
  notes: string[];
}

/** A RUN argument that cannot be read: says what was wrong, what was received and what to pass. */
export class CompareInputError extends Error {}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function firstLine(text: unknown, fallback: string): string {
  return typeof text === "string" && text.trim() ? (text.trim().split("\n")[0] ?? fallback) : fallback;
}

function empty(name: string, source: string, kind: RunKind): RunVerdicts {
  return {
    name,
    source,
    kind,
    resolved: new Set(),
    unresolved: new Set(),
    infrastructure: new Map(),
    resolvedOnly: false,
    notes: [],
  };
}

/**
 * A run summary with `resolved_ids`: the SWE-bench harness's `<model>.<run_id>.json`, or patchloop's
 * (the same keys plus a `patchloop` section). Resolved: `resolved_ids`. Unresolved:
 * `unresolved_ids`, `empty_patch_ids` and, in a patchloop summary, the error ids that are the
 * patch's own (did not apply, tests timed out). Infrastructure: patchloop's environment mismatches,
 * infrastructure errors and runs without test results; the harness's `error_ids` (its summary does not say why); v5's
 * `infra_failure_ids` (the environment tier; the ambiguous tier stays unresolved, with a note).
 */
function fromSummary(doc: Json, name: string, source: string, kind: RunKind): RunVerdicts {
  const run = empty(name, source, kind);
  const own = isObject(doc.patchloop) ? doc.patchloop : null;
  const errors = own && isObject(own.errors) ? own.errors : {};
  const reasons = isObject(doc.failure_reasons) ? doc.failure_reasons : {};
  for (const id of strings(doc.resolved_ids)) run.resolved.add(id);
  for (const id of [...strings(doc.unresolved_ids), ...strings(doc.empty_patch_ids)]) run.unresolved.add(id);
  const infra = new Map<string, string>();
  if (own) {
    for (const id of strings(own.environment_mismatch_ids))
      infra.set(
        id,
        `environment mismatch: ${firstLine(errors[id], "the tests misbehave without any patch")}`,
      );
    for (const id of strings(own.infrastructure_error_ids))
      infra.set(id, `infrastructure error: ${firstLine(errors[id], "not graded")}`);
    for (const id of strings(own.no_results_ids))
      infra.set(id, `no test results: ${firstLine(errors[id], "the log gave no results")}`);
  }
  for (const id of strings(doc.infra_failure_ids))
    infra.set(id, `infrastructure failure (v5 label): ${firstLine(reasons[id], "environment")}`);
  const ambiguous = strings(doc.ambiguous_failure_ids);
  if (ambiguous.length)
    run.notes.push(
      `${ambiguous.length} instance(s) carry v5's ambiguous infrastructure label (the environment or the patch); counted as graded`,
    );
  for (const id of strings(doc.error_ids)) {
    if (infra.has(id)) continue;
    if (own) run.unresolved.add(id);
    else infra.set(id, "harness error (no report.json; the summary does not say why)");
  }
  for (const [id, why] of infra) {
    run.resolved.delete(id);
    run.unresolved.delete(id);
    run.infrastructure.set(id, why);
  }
  for (const id of run.resolved) run.unresolved.delete(id);
  return run;
}

/** SWE-bench/experiments' `results/results.json`: `{resolved: [...], no_generation: [...], no_logs: [...]}`. */
function fromResultsList(doc: Json, name: string, source: string): RunVerdicts {
  const run = empty(name, source, "resolved-list");
  run.resolvedOnly = true;
  for (const id of strings(doc.resolved)) run.resolved.add(id);
  for (const id of strings(doc.no_generation)) if (!run.resolved.has(id)) run.unresolved.add(id);
  for (const id of strings(doc.no_logs))
    if (!run.resolved.has(id)) run.infrastructure.set(id, "no evaluation logs (no_logs)");
  run.notes.push(
    "lists resolved instances only: every instance another run evaluated counts as evaluated here, unresolved unless listed",
  );
  return run;
}

/** `{<id>: {resolved: true|false, ...}}`: report.json entries merged, or per-instance details. */
function fromVerdictMap(doc: Json, name: string, source: string): RunVerdicts | null {
  const entries = Object.entries(doc);
  if (entries.length === 0) return null;
  const run = empty(name, source, "verdict-map");
  for (const [id, v] of entries) {
    if (!isObject(v) || typeof v.resolved !== "boolean") return null;
    if (v.infra_failure === true) run.infrastructure.set(id, "infrastructure failure (v5 report)");
    else if (!v.resolved && !isObject(v.tests_status) && typeof v.no_results_reason === "string")
      run.infrastructure.set(id, `no test results: ${firstLine(v.no_results_reason, "")}`);
    else (v.resolved ? run.resolved : run.unresolved).add(id);
  }
  return run;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CompareInputError(`${path}: cannot read it (${(err as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CompareInputError(
      `${path}: not JSON (${(err as Error).message}); pass a run folder, an eval summary or a harness run summary`,
    );
  }
}

/** Reads one JSON file as a run; `name` defaults to the file name without `.json`. */
export function loadRunFile(path: string, name = basename(path).replace(/\.json$/, "")): RunVerdicts {
  const doc = readJson(path);
  if (!isObject(doc))
    throw new CompareInputError(
      `${path}: a JSON ${Array.isArray(doc) ? "list" : typeof doc}, not a run summary; pass a run folder, an eval summary (resolved_ids) or results.json (resolved)`,
    );
  if (Array.isArray(doc.resolved_ids))
    return fromSummary(
      doc,
      name,
      path,
      isObject(doc.patchloop) ? "patchloop-eval-summary" : "harness-summary",
    );
  if (Array.isArray(doc.resolved)) return fromResultsList(doc, name, path);
  const map = fromVerdictMap(doc, name, path);
  if (map) return map;
  const keys = Object.keys(doc).slice(0, 6).join(", ");
  throw new CompareInputError(
    `${path}: not a run's verdicts (top-level keys: ${keys || "none"}); expected resolved_ids (a harness or patchloop summary), resolved (SWE-bench/experiments results.json) or {<instance id>: {resolved: true|false}}`,
  );
}

/** Run summaries (`*.json` with `resolved_ids`) directly in `dir`. */
function summariesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "report.json")
    .map((f) => join(dir, f))
    .filter((p) => {
      try {
        const doc = JSON.parse(readFileSync(p, "utf8")) as unknown;
        return isObject(doc) && Array.isArray(doc.resolved_ids);
      } catch {
        return false;
      }
    });
}

/**
 * The eval summary of a run folder: `DIR/eval/<run id>/<model>.<run id>.json` (or one directly in
 * `DIR/eval/`, where the harness run from DIR leaves it), leaving out the runs
 * that grade attempts (`<run id>-attempt-<k>`); the newest when several evaluations are there. A
 * folder holding a summary itself (an eval run folder) is read too. null: none.
 */
export function findRunSummary(dir: string): { path: string; others: string[] } | null {
  const here = summariesIn(dir);
  const evalDir = join(dir, "eval");
  const nested = existsSync(evalDir)
    ? readdirSync(evalDir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !/-attempt-\d+$/.test(e.name))
        .flatMap((e) => summariesIn(join(evalDir, e.name)))
    : [];
  const all = [...here, ...summariesIn(evalDir), ...nested].sort(
    (a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs,
  );
  return all.length ? { path: all[0], others: all.slice(1) } : null;
}

/**
 * Instances the batch itself recorded as infrastructure failures (run.json `infrastructure: true`:
 * the environment or model server failed before the model's first reply, every run) are set apart
 * with the run's reason, whatever grading an empty patch gave; a resolved one stays resolved.
 */
function batchInfrastructure(dir: string, run: RunVerdicts): void {
  const read = readRunJson(join(dir, "run.json"));
  if (!read.ok) return;
  for (const [id, rec] of Object.entries(read.run.instances ?? {})) {
    if (rec.infrastructure !== true || run.resolved.has(id)) continue;
    const tries = (rec.infra_retries ?? 0) + 1;
    run.unresolved.delete(id);
    run.infrastructure.set(
      id,
      `infrastructure failure in the run (${rec.exit_status}, ${tries} tr${tries === 1 ? "y" : "ies"}): ${firstLine(rec.exit_message, "no message")}`,
    );
  }
}

/** Reads a RUN argument: a run folder, an eval run folder, or a summary / results / verdict file. */
export function loadRun(arg: string): RunVerdicts {
  const path = resolve(arg);
  if (!existsSync(path))
    throw new CompareInputError(`${arg}: no such file or folder; pass a run folder or a run summary JSON`);
  if (!statSync(path).isDirectory()) return loadRunFile(path);
  const found = findRunSummary(path);
  if (!found)
    throw new CompareInputError(
      `${arg}: a folder with no evaluation (no DIR/eval/<run id>/*.json with resolved_ids); grade it first with \`patchloop eval ${arg}\`, or pass a summary file`,
    );
  const run = loadRunFile(found.path, basename(path));
  run.source = arg;
  run.kind = "patchloop-run-folder";
  batchInfrastructure(path, run);
  if (found.others.length)
    run.notes.push(`read the newest evaluation ${found.path}; also there: ${found.others.join(", ")}`);
  return run;
}
