import { readFile } from "node:fs/promises";
import { asBoolean, asRecord, asStringArray, type JsonRecord } from "./json-read.js";
import type { FoundFile } from "./scan-files.js";
import type { EvalResult } from "./view-model.js";

/** Evaluation results by instance id, the files they came from, and files that could not be read. */
export interface EvalIndex {
  results: Map<string, EvalResult>;
  files: string[];
  problems: string[];
}

/** Largest JSON file read while looking for run summaries (bytes). */
const MAX_SUMMARY_BYTES = 50 * 1024 * 1024;

function fromInstanceReport(entry: JsonRecord, reportFile: string): EvalResult {
  const status = asRecord(entry.tests_status);
  const f2p = asRecord(status?.FAIL_TO_PASS);
  const p2p = asRecord(status?.PASS_TO_PASS);
  return {
    resolved: asBoolean(entry.resolved),
    patchApplied: asBoolean(entry.patch_successfully_applied),
    failToPassFailures: asStringArray(f2p?.failure),
    passToPassFailures: asStringArray(p2p?.failure),
    failToPassPassed: asStringArray(f2p?.success).length,
    passToPassPassed: asStringArray(p2p?.success).length,
    reportFile,
  };
}

function fromSummary(resolved: boolean, reportFile: string): EvalResult {
  return {
    resolved,
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

/**
 * Reads the evaluation results among `files` (a scan of the served folder). Accepted:
 * - per-instance `report.json` files in the SWE-bench harness's shape
 *   `{<id>: {resolved, patch_successfully_applied, tests_status: {FAIL_TO_PASS: {success, failure}, ...}}}`,
 *   at any depth of the scan (e.g. `eval/<run_id>/<id>/report.json`, `logs/run_evaluation/...`);
 * - run summaries: any other `.json` file, not a trajectory, up to three folders deep, whose top level
 *   has a `resolved_ids` list; ids in `unresolved_ids`, `error_ids` or `empty_patch_ids` count as
 *   not resolved.
 * A per-instance report beats a summary; between two of the same kind the newer file wins.
 */
export async function readEvalReports(files: FoundFile[]): Promise<EvalIndex> {
  const index: EvalIndex = { results: new Map(), files: [], problems: [] };
  const fromSummaries = new Map<string, EvalResult>();
  const byAge = [...files].sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const file of byAge) {
    const name = file.rel.split("/").at(-1) ?? "";
    const isReport = name === "report.json";
    const maybeSummary =
      !isReport &&
      name.endsWith(".json") &&
      !name.endsWith(".traj.json") &&
      name !== "preds.json" &&
      file.depth <= 3 &&
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
      for (const id of asStringArray(doc.resolved_ids)) fromSummaries.set(id, fromSummary(true, file.rel));
      for (const key of ["unresolved_ids", "error_ids", "empty_patch_ids"]) {
        for (const id of asStringArray(doc[key])) fromSummaries.set(id, fromSummary(false, file.rel));
      }
      index.files.push(file.rel);
    }
  }
  for (const [id, result] of fromSummaries) if (!index.results.has(id)) index.results.set(id, result);
  index.files.sort();
  return index;
}
