import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { selectInstances } from "../dataset/select.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { BatchInputError } from "../run-folder/errors.js";
import { checkInstanceIds } from "../run-folder/instance-ids.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { EnvironmentProvider } from "./eval-environment.js";
import { getResolutionStatus } from "./grading.js";
import { classifyInfraFailure } from "./infra-failure.js";
import type { HarnessReportEntry } from "./instance-report.js";
import { agreeingResolution, type InstanceResult } from "./instance-result.js";
import type { HarnessVersion } from "./parsers/index.js";
import { checkPredictionIds, type Prediction, PredictionsError } from "./predictions.js";
import { evaluateInstance } from "./run-instance.js";
import { makeRunSummary, type RunSummary, type SummaryOptions, type SummaryScope } from "./summary.js";
import type { SpecOverrides } from "./test-spec.js";

/** Everything `evaluatePredictions` needs. */
export interface EvaluateOptions {
  /** The whole dataset split; predictions must name instances in it (else `PredictionsError`). */
  dataset: SwebenchInstance[];
  predictions: Prediction[];
  runId: string;
  /** Reports go to `<outputDir>/<runId>/<instance_id>/` and the summary to `<outputDir>/<runId>/`. */
  outputDir: string;
  provider: EnvironmentProvider;
  /** Restrict the run (and `total_instances`) to these ids; unknown ids are a `DatasetError`. */
  instanceIds?: string[];
  /** Instances evaluated at once (default 1). */
  workers?: number;
  /** Seconds eval.sh may run per instance (default 1800, the harness's). */
  timeout?: number;
  harness?: HarnessVersion;
  /** Re-run the spec's install in eval.sh (default: yes in images, no on the host). */
  install?: boolean;
  specs?: SpecOverrides;
  normalizeDjango?: boolean;
  /** Evaluate again even where a report.json exists (default: reuse it, as the harness does). */
  redo?: boolean;
  /** `--python`: the interpreter of host runs (local, bwrap). */
  python?: string;
  /** Run the environment check before grading each instance (env-check.ts). Default false. */
  checkEnv?: boolean;
  /** Why the check is off, for the report (e.g. `turned off with --no-check-env`). */
  checkEnvOff?: string;
  /** Where checks are cached (default: none; the CLI passes `defaultEnvCheckCacheDir()`). */
  checkCacheDir?: string;
  /** A checkout of scaleapi/SWE-bench_Pro-os, for SWE-bench Pro rows (their run scripts and parsers). */
  proScripts?: string;
  /** What `total_instances` counts, for the report (default: the dataset given). */
  scope?: SummaryScope;
  /** Called after each instance, in completion order. */
  onResult?: (result: InstanceResult, done: number, total: number) => void;
  /** Aborting stops starting new instances; running ones finish. */
  signal?: AbortSignal;
}

/** What `evaluatePredictions` returns. */
export interface EvaluationRun {
  summary: RunSummary;
  results: InstanceResult[];
  /** The summary file: `<outputDir>/<runId>/<model_name_or_path with / as __>.<runId>.json`. */
  summaryPath: string;
}

/**
 * The earlier verdict in `logDir/report.json`, when it graded this patch: a patch.diff there that
 * differs from `patch` (preds.json changed since, e.g. by `patchloop select`) is graded again.
 */
function reuse(logDir: string, instance: SwebenchInstance, patch: unknown): InstanceResult | undefined {
  const path = join(logDir, "report.json");
  if (!existsSync(path)) return undefined;
  try {
    const gradedPatch = join(logDir, "patch.diff");
    if (existsSync(gradedPatch) && readFileSync(gradedPatch, "utf8") !== patch) return undefined;
    const report = JSON.parse(readFileSync(path, "utf8")) as Record<string, HarnessReportEntry>;
    const entry = report[instance.instance_id];
    if (!entry) return undefined;
    const check = entry.environment?.check;
    return {
      instance_id: instance.instance_id,
      repo: instance.repo,
      // The verdict the report.json was written with: no tests_status is "no test results".
      outcome: entry.resolved ? "resolved" : entry.tests_status ? "unresolved" : "no_results",
      ...(entry.tests_status
        ? { resolution: agreeingResolution(entry.resolved, getResolutionStatus(entry.tests_status)) }
        : {}),
      ...(entry.tests_status
        ? {}
        : {
            error:
              entry.no_results_reason ?? "the earlier run's log gave no test results (report.json reused)",
          }),
      ...(check && check.status !== "off"
        ? { check: { status: check.status, cached: true, problems: check.problems, ranWith: "" } }
        : {}),
      report,
      seconds: 0,
    };
  } catch {
    return undefined;
  }
}

/** Runs `task` over `items` with at most `limit` at once, in order of start. */
async function pool<T>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/**
 * Each graded instance's reports go to `<runDir>/<instance id>/`: the ids must name a folder
 * there, by the batch's rule for `DIR/<id>/` (`checkInstanceIds`: no `/`, `\`, NUL, `.`, `..` or
 * empty id, none twice), checked before anything is graded or written. A `PredictionsError`
 * (`eval` exits 2) naming the id and the folder.
 */
function checkReportFolders(rows: SwebenchInstance[], runDir: string): void {
  try {
    checkInstanceIds(rows);
  } catch (err) {
    if (!(err instanceof BatchInputError)) throw err;
    throw new PredictionsError(
      `${err.message.replace(/\bin the run directory\b/, `under ${runDir}`)}; eval writes each instance's reports to <output>/<run id>/<instance id>/, so it grades nothing until the dataset and predictions use such ids`,
    );
  }
}

/**
 * Evaluates predictions like the official harness's `run_evaluation`: checks the predictions
 * against the dataset, runs every non-empty prediction in a fresh environment (at most
 * `workers` at once), writes per-instance reports and the run summary (atomically, after every
 * instance, so a killed run keeps what was done), and returns the summary. A failing instance
 * never stops the others.
 */
export async function evaluatePredictions(options: EvaluateOptions): Promise<EvaluationRun> {
  checkPredictionIds(options.predictions, options.dataset);
  const rows = selectInstances(options.dataset, { instanceIds: options.instanceIds });
  const harness = options.harness ?? "4.1";
  const runDir = join(options.outputDir, options.runId);
  const model = (options.predictions[0]?.model_name_or_path ?? "None").replaceAll("/", "__");
  const summaryPath = join(runDir, `${model}.${options.runId}.json`);
  const byId = new Map(options.predictions.map((p) => [p.instance_id, p]));
  const todo = rows.filter((r) => byId.has(r.instance_id));
  checkReportFolders(todo, runDir);
  const results: InstanceResult[] = [];
  const summaryOptions: SummaryOptions = {
    scope: options.scope,
    checkEnv: options.checkEnv ?? false,
    checkEnvOff: options.checkEnvOff,
    infraLabels: {},
  };
  let chain = Promise.resolve();
  const record = async (r: InstanceResult) => {
    if (harness === "5" && r.outcome !== "resolved" && r.outcome !== "empty_patch") {
      const dir = join(runDir, r.instance_id);
      const text = ["test_output.txt", "run_instance.log"]
        .map((f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : ""))
        .join("\n");
      const label = classifyInfraFailure(text);
      if (label && summaryOptions.infraLabels) summaryOptions.infraLabels[r.instance_id] = label;
      // The console line shows the label the summary records (one verdict everywhere).
      if (label) r.infra = label;
    }
    results.push(r);
    options.onResult?.(r, results.length, todo.length);
    const summary = makeRunSummary(
      rows,
      options.predictions,
      results,
      options.runId,
      harness,
      summaryOptions,
    );
    chain = chain.then(() => writeFileAtomic(summaryPath, `${JSON.stringify(summary, null, 2)}\n`));
    return chain;
  };
  await pool(
    todo,
    options.workers ?? 1,
    async (instance) => {
      const logDir = join(runDir, instance.instance_id);
      const prediction = byId.get(instance.instance_id) as Prediction;
      const existing = options.redo ? undefined : reuse(logDir, instance, prediction.model_patch);
      const result =
        existing ??
        (await evaluateInstance(instance, prediction, {
          logDir,
          provider: options.provider,
          timeout: options.timeout ?? 1800,
          harness,
          install: options.install,
          specs: options.specs,
          normalizeDjango: options.normalizeDjango,
          python: options.python,
          checkEnv: options.checkEnv,
          checkCacheDir: options.checkCacheDir,
          proScripts: options.proScripts,
        }));
      await record(result);
    },
    options.signal,
  );
  const order = new Map(rows.map((r, i) => [r.instance_id, i]));
  results.sort((a, b) => (order.get(a.instance_id) ?? 0) - (order.get(b.instance_id) ?? 0));
  const summary = makeRunSummary(rows, options.predictions, results, options.runId, harness, summaryOptions);
  await chain;
  await writeFileAtomic(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  return { summary, results, summaryPath };
}
