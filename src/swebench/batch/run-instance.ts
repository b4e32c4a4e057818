import type { AgentEvent } from "../../agent/agent.js";
import type { Config } from "../../config/schema.js";
import type { Model } from "../../models/types.js";
import type { TaskOutcome } from "../../task/outcome.js";
import { runTask } from "../../task/run-task.js";
import type { SwebenchInstance } from "../types.js";
import { trajectoryPathFor } from "./resume.js";
import type { EnvironmentOpener } from "./types.js";

/** What running one instance needs from the batch. */
export interface InstanceContext {
  config: Config;
  /** Where the instance's folder (`<id>/<id>.traj.json`) is written: the run folder, or a worker's scratch folder. */
  outputDir: string;
  modelFor: (row: SwebenchInstance) => Model;
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
 * Runs one SWE-bench instance as a task (src/task/run-task.ts): the row's problem statement in
 * the row's environment, the trajectory under `ctx.outputDir`. Its outcome goes to the run folder
 * (run-folder.ts writes preds.json and run.json from it); it rejects only when a file cannot be
 * written.
 */
export function runInstance(row: SwebenchInstance, ctx: InstanceContext): Promise<TaskOutcome> {
  return runTask({
    config: ctx.config,
    instanceId: row.instance_id,
    task: row.problem_statement,
    instance: row,
    repo: row.repo,
    model: () => ctx.modelFor(row),
    modelName: ctx.modelName,
    trajectoryPath: trajectoryPathFor(ctx.outputDir, row.instance_id),
    open: (signal) => ctx.openEnvironment(row, signal),
    signal: ctx.signal,
    onEvent: ctx.onAgentEvent,
    log: ctx.log,
    warn: ctx.warn ?? ((m) => ctx.log(`WARNING: ${m}`)),
  });
}
