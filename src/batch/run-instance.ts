import type { AgentEvent } from "../agent/agent.js";
import { attemptConfig } from "../config/attempt-variants.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import type { Model } from "../models/types.js";
import { trajectoryPathFor } from "../run-folder/resume.js";
import type { TaskOutcome } from "../task/outcome.js";
import { runTask } from "../task/run-task.js";
import type { EnvironmentOpener, WorkUnit } from "./types.js";

/** What running one instance needs from the batch. */
export interface InstanceContext {
  config: Config;
  /** Where the instance's folder (`<id>/<id>.traj.json`) is written: the run folder, or a worker's scratch folder. */
  outputDir: string;
  /** The model of the unit, made from the config it runs with (its attempt's variant applied). */
  modelFor: (row: SwebenchInstance, config: Config, attempt?: number) => Model;
  openEnvironment: EnvironmentOpener;
  /** The model's name in the trajectory of an instance whose agent never ran. */
  modelName: string;
  signal: AbortSignal;
  onAgentEvent: (event: AgentEvent) => void;
  log: (line: string) => void;
  /** Warnings for the person (the run folder writes them to run.log too); default: a log line. */
  warn?: (message: string) => void;
}

/**
 * Runs one SWE-bench instance (or one attempt of it, with its variant of the config:
 * config/attempt-variants.ts) as a task (src/task/run-task.ts): the row's problem statement in
 * the row's environment, the trajectory under `ctx.outputDir`. Its outcome goes to the run folder
 * (run-folder.ts writes preds.json and run.json from it); it rejects only when a file cannot be
 * written. Nothing of one attempt reaches another: each opens its own environment. The outcome
 * always carries the unit's attempt number. An environment or model server failure before the
 * model's first reply runs the task again as `run.infra_retry` says (here, so that a queue's
 * workers retry as this process does) and is recorded as an infrastructure failure.
 */
export async function runInstance(unit: WorkUnit, ctx: InstanceContext): Promise<TaskOutcome> {
  const { row, attempt } = unit;
  const config = attempt === undefined ? ctx.config : attemptConfig(ctx.config, attempt);
  const outcome = await runTask({
    config,
    instanceId: row.instance_id,
    attemptNumber: attempt,
    task: row.problem_statement,
    instance: row,
    repo: row.repo,
    model: () => ctx.modelFor(row, config, attempt),
    modelName: ctx.modelName,
    trajectoryPath: trajectoryPathFor(ctx.outputDir, row.instance_id, attempt),
    open: (signal) => ctx.openEnvironment(row, signal, config),
    signal: ctx.signal,
    onEvent: ctx.onAgentEvent,
    log: ctx.log,
    warn: ctx.warn ?? ((m) => ctx.log(`WARNING: ${m}`)),
    infraRetry: config.run.infra_retry,
  });
  // Every outcome names its unit, however the task ended (an environment that never opened
  // included): the run folder accepts results by `<id>/attempt-<k>`, and drops one it cannot place.
  return attempt === undefined ? outcome : { ...outcome, attempt_number: attempt };
}
