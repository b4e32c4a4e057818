import { basename, join, resolve } from "node:path";
import type { Config } from "../../config/schema.js";
import { createEnvironment } from "../../environments/index.js";
import { containerProvider, type EnvironmentProvider } from "../eval/eval-environment.js";
import { type EvaluationRun, evaluatePredictions } from "../eval/evaluate.js";
import type { Prediction } from "../eval/predictions.js";
import type { InstanceResult } from "../eval/run-instance.js";
import { worktreeProvider } from "../eval/worktree.js";
import type { SwebenchInstance } from "../types.js";
import type { PredsFile } from "./preds-file.js";

/** What `evaluateRun` needs: the batch's config, selection and folder. */
export interface EvaluateRunOptions {
  config: Config;
  /** The selected rows: predictions of other instances in preds.json are left out. */
  rows: SwebenchInstance[];
  outputDir: string;
  preds: PredsFile;
  reposDir?: string;
  workers?: number;
  signal?: AbortSignal;
  onResult?: (result: InstanceResult, done: number, total: number) => void;
}

/** Where the grading environments come from: the instance images, or work trees of `--repos-dir`. */
function providerFor(o: EvaluateRunOptions, runId: string): EnvironmentProvider {
  const e = o.config.environment;
  if (e.environment_class === "docker" || e.environment_class === "podman") {
    return containerProvider({
      open: (image) => createEnvironment({ ...e, image, cwd: "" }, { runId }),
      imageFor: e.image ? () => e.image as string : undefined,
    });
  }
  if (!o.reposDir) throw new Error(`--evaluate with environment ${e.environment_class} needs --repos-dir`);
  if (e.environment_class === "local") return worktreeProvider({ reposDir: o.reposDir });
  return worktreeProvider({
    reposDir: o.reposDir,
    open: async (worktree) => ({
      env: await createEnvironment({ ...e, cwd: "" }, { repoDir: worktree }),
      scratchDir: "/tmp",
    }),
  });
}

/**
 * Grades the batch's predictions with `evaluatePredictions`: reports under `DIR/eval/<run id>/`
 * where the run id is `patchloop-<folder name>`, in the environment kind the batch used.
 */
export function evaluateRun(o: EvaluateRunOptions): Promise<EvaluationRun> {
  const outputDir = resolve(o.outputDir);
  const runId = `patchloop-${basename(outputDir)}`;
  const predictions: Prediction[] = [];
  for (const row of o.rows) {
    const p = o.preds.get(row.instance_id);
    if (p) predictions.push({ ...p });
  }
  return evaluatePredictions({
    dataset: o.rows,
    predictions,
    runId,
    outputDir: join(outputDir, "eval"),
    provider: providerFor(o, runId),
    workers: o.workers,
    signal: o.signal,
    onResult: o.onResult,
  });
}
