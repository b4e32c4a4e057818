import { basename } from "node:path";
import { readAttemptGrades } from "./attempt-grades.js";
import { attemptOfPath, type FoundAttempt, instanceAttempts, type TrajectoryFacts } from "./attempts.js";
import { computeCharts, repoOf } from "./charts.js";
import { type EvalIndex, readEvalReports, SUMMARY_DEPTH } from "./eval-reports.js";
import { idFromFileName, loadTrajectoryFile } from "./normalize.js";
import { readRunFiles } from "./run-files.js";
import { type FoundFile, isTrajectoryName, scanFiles } from "./scan-files.js";
import { readSelectionFile } from "./selection-file.js";
import type { EvalResult, InstanceRow, RunOverview, TrajectoryView } from "./view/view-model.js";

const SCAN = { maxDepth: 6, maxEntries: 200_000 };
/** Trajectories are looked for this many folders deep (`<id>/<id>.traj.json` is depth 1). */
const TRAJECTORY_DEPTH = 3;

type Loaded = { id: string; facts: TrajectoryFacts | null; error: string | null };

function emptyRow(id: string): InstanceRow {
  return {
    id,
    repo: repoOf(id),
    exitStatus: null,
    resolved: null,
    evalOutcome: null,
    steps: null,
    prompt_tokens: null,
    completion_tokens: null,
    cost: null,
    wallSeconds: null,
    trajectory: null,
    patchChars: null,
    error: null,
    attempts: null,
  };
}

/**
 * A run folder as the viewer sees it. Every call re-reads the folder (a run may still be going);
 * what the overview needs from each trajectory is cached by path, size and modification time.
 */
export class RunFolder {
  private readonly cache = new Map<string, { key: string; loaded: Loaded }>();

  /** `root` must be an absolute, symlink-free path (the server passes its realpath). */
  constructor(readonly root: string) {}

  private async load(file: FoundFile): Promise<Loaded> {
    const key = `${file.size}:${file.mtimeMs}`;
    const hit = this.cache.get(file.abs);
    if (hit?.key === key) return hit.loaded;
    let loaded: Loaded;
    try {
      const view = await loadTrajectoryFile(file.abs);
      loaded = { id: view.instanceId ?? idFromFileName(file.rel), facts: rowFacts(view), error: null };
    } catch (err) {
      loaded = {
        id: idFromFileName(file.rel),
        facts: null,
        error: (err as Error).message.replace(this.root, "."),
      };
    }
    this.cache.set(file.abs, { key, loaded });
    return loaded;
  }

  /** Evaluation results found under the folder (see readEvalReports for the accepted files). */
  async evalIndex(): Promise<EvalIndex> {
    return readEvalReports(await scanFiles(this.root, SCAN));
  }

  async overview(): Promise<RunOverview> {
    const files = await scanFiles(this.root, SCAN);
    const run = await readRunFiles(this.root);
    const evals = await readEvalReports(files);
    const selection = await readSelectionFile(this.root);
    const grades = await readAttemptGrades(files);
    const rows = new Map<string, InstanceRow>();
    const problems = [...run.problems, ...evals.problems, ...selection.problems, ...grades.problems];
    // Attempt trajectories first: an instance with attempt folders gets one row, showing one attempt.
    const found = new Map<string, Map<number, FoundAttempt>>();
    for (const file of files) {
      const at = attemptOfPath(file.rel);
      if (!at || !isTrajectoryName(file.rel)) continue;
      const loaded = await this.load(file);
      const byK = found.get(at.id) ?? new Map<number, FoundAttempt>();
      byK.set(at.attempt, { rel: file.rel, facts: loaded.facts, error: loaded.error });
      found.set(at.id, byK);
    }
    for (const id of run.attemptRecords.keys()) if (!found.has(id)) found.set(id, new Map());
    for (const [id, byK] of found) {
      const attempts = instanceAttempts(id, byK, run, selection, grades, problems);
      const shown = attempts.list.find((a) => a.shown);
      const row = emptyRow(id);
      if (shown) {
        row.trajectory = shown.trajectory;
        row.error = shown.error;
        row.exitStatus = shown.exitStatus;
        row.steps = shown.steps;
        row.prompt_tokens = shown.prompt_tokens;
        row.completion_tokens = shown.completion_tokens;
        row.cost = shown.cost;
        row.wallSeconds = shown.wallSeconds;
        row.patchChars = shown.patchChars;
      }
      row.attempts = attempts;
      rows.set(id, row);
    }
    for (const file of files) {
      if (!isTrajectoryName(file.rel) || file.depth > TRAJECTORY_DEPTH || attemptOfPath(file.rel)) continue;
      const loaded = await this.load(file);
      const id = loaded.id;
      if (rows.has(id)) {
        problems.push(`${file.rel}: a second trajectory for ${id} (showing ${rows.get(id)!.trajectory})`);
        continue;
      }
      const row = emptyRow(id);
      row.trajectory = file.rel;
      Object.assign(row, loaded.facts ?? {});
      row.error = loaded.error;
      rows.set(id, row);
    }
    for (const id of [...run.patches.keys(), ...run.exitStatuses.keys()]) {
      if (!rows.has(id)) rows.set(id, emptyRow(id));
    }
    for (const row of rows.values()) {
      row.exitStatus ??= run.exitStatuses.get(row.id) ?? null;
      const patch = run.patches.get(row.id);
      if (patch !== undefined && !row.attempts) row.patchChars = patch.length;
      const result = evals.results.get(row.id);
      row.resolved = result?.resolved ?? null;
      row.evalOutcome = result?.outcome ?? null;
      // The grade of the very patch the row shows beats the graded preds.json, which a later
      // selection may have changed; a "not graded" reason (environment mismatch, ...) stays.
      const grade = row.attempts?.list.find((a) => a.shown)?.grade;
      if (grade && !(result && result.resolved === null && result.outcome)) {
        row.resolved = grade === "resolved";
        row.evalOutcome = null;
      }
    }
    const sorted = [...rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      name: basename(this.root),
      totals: run.totals,
      evalSearch: evalSearchText(basename(this.root), run.totals !== null),
      rows: sorted,
      charts: computeCharts(sorted),
      evalFiles: [...evals.files, ...grades.files].sort(),
      runFacts: run.facts,
      problems,
    };
  }
}

/**
 * Where evaluation results are looked for, and how to make them, in words (shown when none was
 * found). `batch`: the folder has a run.json (`patchloop swebench -o DIR`), whose dataset `eval`
 * reads; without one (`patchloop run`, another scaffold's run) eval needs the dataset named, and a
 * `patchloop run` folder has none to grade against.
 */
export function evalSearchText(folder: string, batch: boolean): string {
  const looked =
    `looked under ${folder}/ for report.json files (up to ${SCAN.maxDepth} folders deep) and run summaries ` +
    `(.json files with a resolved_ids list, up to ${SUMMARY_DEPTH} deep); `;
  if (batch)
    return `${looked}grade this run with \`patchloop eval --predictions <this folder>\`, which writes them to <this folder>/eval/`;
  return (
    `${looked}this folder has no run.json, so it is not a \`patchloop swebench\` run: predictions of SWE-bench ` +
    "instances are graded with `patchloop eval --predictions <this folder> --dataset NAME|FILE` (the rows they " +
    "were made for), while a `patchloop run` folder has no dataset row to grade its patch against"
  );
}

function rowFacts(view: TrajectoryView): TrajectoryFacts {
  return {
    exitStatus: view.exitStatus,
    steps: view.steps.length,
    prompt_tokens: view.prompt_tokens,
    completion_tokens: view.completion_tokens,
    cost: view.cost,
    wallSeconds: view.wallSeconds,
    patchChars: view.submission.length,
  };
}

/**
 * The evaluation result for a trajectory: an attempt's (`<id>/attempt-<k>/<id>.traj.json`) from the
 * run that graded attempt k's patches, else the instance's, if any report covers it.
 */
export function evalFor(index: EvalIndex, view: TrajectoryView, rel: string): EvalResult | null {
  const at = attemptOfPath(rel);
  if (at) return index.byAttempt.get(at.attempt)?.get(at.id) ?? null;
  return view.instanceId ? (index.results.get(view.instanceId) ?? null) : null;
}

/** Where an attempt's evaluation was looked for, in words (shown when none was found). */
export function attemptEvalSearchText(folder: string, attempt: number): string {
  return (
    `looked under ${folder}/ for a run named <run>-attempt-${attempt} beside <run>; \`patchloop eval\` of a ` +
    "folder with attempts grades each distinct patch once, under the first attempt that had it, so an attempt " +
    "whose patch an earlier attempt already had has no report of its own (the overview shows its grade " +
    "from attempts.json)"
  );
}
