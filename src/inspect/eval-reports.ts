import { readFile } from "node:fs/promises";
import { asBoolean, asRecord, asStringArray, type JsonRecord } from "./json-read.js";
import type { FoundFile } from "./scan-files.js";
import type { EvalFile, EvalResult } from "./view/view-model.js";

/** Evaluation results by instance id, the files they came from, and files that could not be read. */
export interface EvalIndex {
  /** The instance's own results (the graded preds.json); never those of an attempt's run. */
  results: Map<string, EvalResult>;
  /**
   * Results of the runs that grade a folder's attempts (`<run>-attempt-<k>` beside `<run>`), by
   * attempt number k, then instance id. Such a run holds only the patches no earlier attempt of the
   * instance had.
   */
  byAttempt: Map<number, Map<string, EvalResult>>;
  files: string[];
  problems: string[];
}

/** Largest JSON file read while looking for run summaries (bytes). */
const MAX_SUMMARY_BYTES = 50 * 1024 * 1024;
/** How deep run summaries are looked for (`<id>/<id>.traj.json` is depth 1). */
export const SUMMARY_DEPTH = 3;

/** The files of an instance's evaluation folder (`.../<instance_id>/<name>`), in the order shown. */
const INSTANCE_FILES: Array<[string, string]> = [
  ["test_output.txt", "test output"],
  ["run_instance.log", "eval log"],
  ["eval.sh", "eval.sh"],
  ["report.json", "report"],
  ["env_check.json", "environment check"],
  ["env_check_output.txt", "environment check output"],
];

/** The lists of a patchloop run summary that say why an instance was not graded. */
const NOT_GRADED: Array<[string, string]> = [
  ["environment_mismatch_ids", "environment mismatch"],
  ["patch_apply_failed_ids", "patch did not apply"],
  ["timeout_ids", "timed out"],
  ["infrastructure_error_ids", "infrastructure error"],
];

function fromInstanceReport(entry: JsonRecord, reportFile: string): EvalResult {
  const status = asRecord(entry.tests_status);
  const f2p = asRecord(status?.FAIL_TO_PASS);
  const p2p = asRecord(status?.PASS_TO_PASS);
  return {
    resolved: asBoolean(entry.resolved),
    outcome: null,
    detail: typeof entry.no_results_reason === "string" ? entry.no_results_reason : null,
    files: [],
    patchApplied: asBoolean(entry.patch_successfully_applied),
    failToPassFailures: asStringArray(f2p?.failure),
    passToPassFailures: asStringArray(p2p?.failure),
    failToPassPassed: asStringArray(f2p?.success).length,
    passToPassPassed: asStringArray(p2p?.success).length,
    reportFile,
  };
}

function fromSummary(
  resolved: boolean | null,
  reportFile: string,
  outcome: string | null = null,
  detail: string | null = null,
): EvalResult {
  return {
    resolved,
    outcome,
    detail,
    files: [],
    patchApplied: null,
    failToPassFailures: [],
    passToPassFailures: [],
    failToPassPassed: 0,
    passToPassPassed: 0,
    reportFile,
  };
}

async function readJson(file: FoundFile): Promise<unknown> {
  return JSON.parse(await readFile(file.abs, "utf8"));
}

/** The folder of a relative path (`a/b/c.json` -> `a/b`). */
function folderOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at < 0 ? "" : rel.slice(0, at);
}

/**
 * Reads the evaluation results among `files` (a scan of the served folder). Accepted:
 * - per-instance `report.json` files in the SWE-bench harness's shape
 *   `{<id>: {resolved, patch_successfully_applied, tests_status: {FAIL_TO_PASS: {success, failure}, ...}}}`,
 *   at any depth of the scan (e.g. `eval/<run_id>/<id>/report.json`, `logs/run_evaluation/...`);
 * - run summaries: any other `.json` file, not a trajectory, up to three folders deep, whose top level
 *   has a `resolved_ids` list; ids in `unresolved_ids` or `empty_patch_ids` count as not resolved,
 *   ids a patchloop summary lists as not graded (environment mismatch, patch did not apply, timed
 *   out, infrastructure error) keep that reason and count as neither, other `error_ids` as not resolved.
 * A per-instance report beats a summary; between two of the same kind the newer file wins. Each
 * result lists the evaluation files of its instance's folder (test output, eval log, ...). The runs
 * that grade attempts (`<run>-attempt-<k>`) go to `byAttempt`, not to the instance's results.
 */
export async function readEvalReports(files: FoundFile[]): Promise<EvalIndex> {
  const folders = new Set<string>();
  for (const f of files) {
    const parts = f.rel.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  const main: FoundFile[] = [];
  const perAttempt = new Map<number, FoundFile[]>();
  for (const f of files) {
    const k = attemptRunOf(f.rel, folders);
    if (k === null) main.push(f);
    else {
      const list = perAttempt.get(k) ?? [];
      list.push(f);
      perAttempt.set(k, list);
    }
  }
  const index = await indexReports(main);
  for (const [k, list] of [...perAttempt].sort((a, b) => a[0] - b[0])) {
    const sub = await indexReports(list);
    index.byAttempt.set(k, sub.results);
    index.files.push(...sub.files);
    index.problems.push(...sub.problems);
  }
  index.files.sort();
  return index;
}

/**
 * The attempt k when `rel` lies in a run folder `<parent>/<run>-attempt-<k>/` and `<parent>/<run>/`
 * is a folder too (`eval` of a folder with attempts grades attempt k's patches there); else null.
 */
export function attemptRunOf(rel: string, folders: Set<string>): number | null {
  const parts = rel.split("/");
  for (let i = 0; i < parts.length - 1; i++) {
    const m = /^(.+)-attempt-([1-9]\d{0,5})$/.exec(parts[i] ?? "");
    if (!m) continue;
    const sibling = [...parts.slice(0, i), m[1]].join("/");
    if (folders.has(sibling)) return Number(m[2]);
  }
  return null;
}

async function indexReports(files: FoundFile[]): Promise<EvalIndex> {
  const index: EvalIndex = { results: new Map(), byAttempt: new Map(), files: [], problems: [] };
  const fromSummaries = new Map<string, EvalResult>();
  const byAge = [...files].sort((a, b) => a.mtimeMs - b.mtimeMs);
  // Evaluation files by folder (`<...>/<instance id>`), the newest of each name winning.
  const folders = new Map<string, Map<string, string>>();
  for (const file of byAge) {
    const name = file.rel.split("/").at(-1) ?? "";
    if (!INSTANCE_FILES.some(([n]) => n === name)) continue;
    const dir = folderOf(file.rel);
    if (!folders.has(dir)) folders.set(dir, new Map());
    folders.get(dir)?.set(name, file.rel);
  }
  for (const file of byAge) {
    const name = file.rel.split("/").at(-1) ?? "";
    const isReport = name === "report.json";
    const maybeSummary =
      !isReport &&
      name.endsWith(".json") &&
      !name.endsWith(".traj.json") &&
      name !== "preds.json" &&
      name !== "env_check.json" &&
      file.depth <= SUMMARY_DEPTH &&
      file.size <= MAX_SUMMARY_BYTES;
    if (!isReport && !maybeSummary) continue;
    let doc: JsonRecord | null;
    try {
      doc = asRecord(await readJson(file));
    } catch (err) {
      if (isReport) index.problems.push(`${file.rel}: not valid JSON (${(err as Error).message})`);
      continue;
    }
    if (!doc) continue;
    if (isReport) {
      let used = false;
      for (const [id, entry] of Object.entries(doc)) {
        const rec = asRecord(entry);
        if (!rec || !("resolved" in rec)) continue;
        index.results.set(id, fromInstanceReport(rec, file.rel));
        used = true;
      }
      if (used) index.files.push(file.rel);
      else index.problems.push(`${file.rel}: no {<instance id>: {resolved, tests_status}} entries`);
    } else if (Array.isArray(doc.resolved_ids)) {
      const own = asRecord(doc.patchloop);
      const errors = asRecord(own?.errors) ?? {};
      const notGraded = new Map<string, string>();
      for (const [key, label] of NOT_GRADED)
        for (const id of asStringArray(own?.[key])) notGraded.set(id, label);
      for (const id of asStringArray(doc.resolved_ids)) fromSummaries.set(id, fromSummary(true, file.rel));
      for (const key of ["unresolved_ids", "error_ids", "empty_patch_ids"]) {
        for (const id of asStringArray(doc[key])) {
          const why = notGraded.get(id);
          const detail = typeof errors[id] === "string" ? (errors[id] as string) : null;
          fromSummaries.set(
            id,
            why ? fromSummary(null, file.rel, why, detail) : fromSummary(false, file.rel, null, detail),
          );
        }
      }
      index.files.push(file.rel);
    }
  }
  for (const [id, result] of fromSummaries) if (!index.results.has(id)) index.results.set(id, result);
  // An instance's files: beside its report.json, else in a folder named after it next to the summary.
  for (const [id, result] of index.results) {
    const here = folderOf(result.reportFile);
    const dir = result.reportFile.endsWith("/report.json") ? here : here ? `${here}/${id}` : id;
    const found = folders.get(dir);
    if (!found) continue;
    result.files = INSTANCE_FILES.flatMap(([name, label]): EvalFile[] => {
      const rel = found.get(name);
      return rel ? [{ label, path: rel }] : [];
    });
  }
  return index;
}
