import { basename, join, resolve } from "node:path";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { defaultEnvCheckCacheDir } from "../grading/env-check.js";
import { type EvaluateOptions, type EvaluationRun, evaluatePredictions } from "../grading/evaluate.js";
import type { InstanceResult } from "../grading/instance-result.js";
import { makeEvalProvider } from "../grading/make-provider.js";
import type { Prediction } from "../grading/predictions.js";
import { readRunSelection, runScope } from "../grading/scope.js";
import type { SpecOverrides } from "../grading/test-spec.js";
import type { PredsFile } from "../run-folder/preds-file.js";
import { type AttemptsReport, evaluateAttempts, readAttempts } from "./attempts-report.js";

/** What `evaluateRun` needs: the batch's config, selection and folder. */
export interface EvaluateRunOptions {
  config: Config;
  /** The selected rows: predictions of other instances in preds.json are left out. */
  rows: SwebenchInstance[];
  outputDir: string;
  preds: PredsFile;
  reposDir?: string;
  workers?: number;
  /** eval's `--specs` and `--python` (swebench --evaluate passes them on). */
  specs?: SpecOverrides;
  python?: string;
  signal?: AbortSignal;
  onResult?: (result: InstanceResult, done: number, total: number) => void;
  /** Told before each attempt's patches are graded (a run with attempts). */
  onAttemptRun?: (attempt: number, patches: number) => void;
}

/** Seconds eval.sh may run per instance (the harness's default). */
const EVAL_TIMEOUT = 1800;

/**
 * Grades the batch's predictions with `evaluatePredictions`: reports under `DIR/eval/<run id>/`
 * where the run id is `patchloop-<folder name>`, in the environment kind the batch used
 * (`makeEvalProvider`), over the selected rows (named as run.json records the selection, the
 * same denominator `patchloop eval --predictions DIR` uses), with the environment check on in
 * local and bwrap (cached where `eval` caches it).
 */
export async function evaluateRun(
  o: EvaluateRunOptions,
): Promise<EvaluationRun & { attempts: AttemptsReport | null }> {
  const outputDir = resolve(o.outputDir);
  const runId = `patchloop-${basename(outputDir)}`;
  const kind = o.config.environment.environment_class;
  const selection = readRunSelection(outputDir);
  const predictions: Prediction[] = [];
  for (const row of o.rows) {
    const p = o.preds.get(row.instance_id);
    if (p) predictions.push({ ...p });
  }
  // With attempts, each line names the attempt whose patch preds.json holds (the first with it).
  const attempts = await readAttempts(
    outputDir,
    predictions.map((p) => p.instance_id),
  );
  const held = new Map<string, number>();
  for (const p of predictions) {
    const k = attempts.get(p.instance_id)?.find((a) => a.patch === p.model_patch && a.patch.trim() !== "");
    if (k) held.set(p.instance_id, k.attempt);
  }
  const onResult = o.onResult;
  const options: EvaluateOptions = {
    dataset: o.rows,
    predictions,
    runId,
    outputDir: join(outputDir, "eval"),
    provider: makeEvalProvider({
      kind: o.config.environment.environment_class,
      environment: o.config.environment,
      reposDir: o.reposDir,
      runId,
      timeout: EVAL_TIMEOUT,
    }),
    timeout: EVAL_TIMEOUT,
    checkEnv: kind === "local" || kind === "bwrap",
    checkEnvOff: `off by default in ${kind} images`,
    checkCacheDir: defaultEnvCheckCacheDir(),
    scope: selection
      ? runScope(selection, o.rows.length)
      : { kind: "selection", description: `the ${o.rows.length} instances of the run` },
    workers: o.workers,
    specs: o.specs,
    python: o.python,
    signal: o.signal,
    onResult: o.onResult,
  };
  const run = await evaluatePredictions({
    ...options,
    ...(onResult && attempts.size > 0
      ? {
          onResult: (r, done, total) => {
            const k = held.get(r.instance_id);
            const which = k === undefined ? "preds.json" : `attempt ${k}, in preds.json`;
            onResult({ ...r, instance_id: `${r.instance_id} (${which})` }, done, total);
          },
        }
      : {}),
  });
  return { ...run, attempts: await evaluateAttempts(outputDir, run, options, o.onAttemptRun) };
}
