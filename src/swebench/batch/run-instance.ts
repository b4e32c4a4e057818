import { type AgentEvent, runAgent } from "../../agent/agent.js";
import { createActionRunner } from "../../agent/create-runner.js";
import { TrajectoryRecorder } from "../../agent/trajectory.js";
import type { ExitStatus, ModelErrorInfo, ModelStats } from "../../agent/trajectory-types.js";
import { versions } from "../../agent/versions.js";
import { redactSecrets } from "../../config/redact.js";
import type { Config } from "../../config/schema.js";
import type { Model } from "../../models/types.js";
import { FileWriteError } from "../../util/atomic-write.js";
import type { SwebenchInstance } from "../types.js";
import { trajectoryPathFor } from "./resume.js";
import type { EnvironmentOpener, InstanceEnvironment, InstanceResult } from "./types.js";

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
}

interface Ended {
  status: ExitStatus;
  message: string;
  submission: string;
  stats: ModelStats;
  modelError?: ModelErrorInfo;
  /** Lines of the patch masked for holding a secret. */
  maskedLines?: number;
}

/** The trajectory of an instance whose agent never ran (its environment could not be opened). */
async function recordNoStart(
  row: SwebenchInstance,
  ctx: InstanceContext,
  ended: Ended,
  started: number,
): Promise<void> {
  const rec = new TrajectoryRecorder(
    trajectoryPathFor(ctx.outputDir, row.instance_id),
    {
      config: redactSecrets(ctx.config),
      versions: versions(),
      timing: {
        started_at: new Date(started).toISOString(),
        ended_at: new Date().toISOString(),
        wall_seconds: 0,
      },
      instance_id: row.instance_id,
      model_name: ctx.modelName,
    },
    { config: ctx.config },
  );
  rec.info.exit_status = ended.status;
  rec.info.exit_message = ended.message;
  await rec.save();
}

const seconds = (ms: number) => Math.round(ms) / 1000;

interface Timed extends Ended {
  /** When the environment was open (or its opening failed). */
  openedAt: number;
  /** When the agent ended (= openedAt when it never ran). */
  agentEndedAt: number;
}

/** Opens the environment and runs the agent in it; the environment is cleaned up whatever happens. */
async function openAndRun(row: SwebenchInstance, ctx: InstanceContext, started: number): Promise<Timed> {
  const id = row.instance_id;
  let opened: InstanceEnvironment;
  try {
    opened = await ctx.openEnvironment(row, ctx.signal);
  } catch (err) {
    const status: ExitStatus = ctx.signal.aborted ? "Interrupted" : "EnvironmentError";
    const ended: Ended = {
      status,
      message: `could not open the environment: ${(err as Error).message}`,
      submission: "",
      stats: { ...NO_STATS },
    };
    ctx.log(`${id}: ${ended.message}`);
    await recordNoStart(row, ctx, ended, started);
    const now = Date.now();
    return { ...ended, openedAt: now, agentEndedAt: now };
  }
  const openedAt = Date.now();
  try {
    const model = ctx.modelFor(row);
    const localization = ctx.config.agent.localize.enabled
      ? await (await import("../../localize/agent-hook.js")).localizeForAgent(
          ctx.config,
          opened.env,
          row.problem_statement,
          { model, signal: ctx.signal },
        )
      : undefined;
    const r = await runAgent({
      localization,
      config: ctx.config,
      model,
      env: opened.env,
      runner: createActionRunner(ctx.config),
      task: row.problem_statement,
      instance: row,
      instanceId: id,
      trajectoryPath: trajectoryPathFor(ctx.outputDir, id),
      onEvent: ctx.onAgentEvent,
      signal: ctx.signal,
      baseCommit: opened.baseCommit,
    });
    const {
      model_stats: stats,
      model_error: modelError,
      submission_masked_lines: masked,
    } = r.trajectory.info;
    return {
      status: r.exitStatus,
      message: r.exitMessage,
      submission: r.submission,
      stats,
      ...(modelError ? { modelError } : {}),
      ...(masked ? { maskedLines: masked } : {}),
      openedAt,
      agentEndedAt: Date.now(),
    };
  } finally {
    await opened
      .cleanup()
      .catch((err: Error) => ctx.log(`${id}: cleaning up the environment failed: ${err.message}`));
  }
}

const NO_STATS: ModelStats = { api_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };

/**
 * Runs one instance from start to end: opens its environment, runs the agent (the trajectory is
 * saved after every step under `ctx.outputDir`), always cleans the environment up, and returns the
 * result for the run folder (run-folder.ts writes preds.json and run.json from it). Task failures
 * (and environments that cannot be opened) become exit statuses, never exceptions; it rejects only
 * when a file cannot be written.
 */
export async function runInstance(row: SwebenchInstance, ctx: InstanceContext): Promise<InstanceResult> {
  const started = Date.now();
  let end: Timed;
  try {
    end = await openAndRun(row, ctx, started);
  } catch (err) {
    // A file of the run that cannot be written stops the batch; anything else that went wrong
    // while running this instance ends this instance only.
    if (err instanceof FileWriteError) throw err;
    const failed: Ended = {
      status: ctx.signal.aborted ? "Interrupted" : "EnvironmentError",
      message: `patchloop failed while running this instance: ${(err as Error).message}`,
      submission: "",
      stats: { ...NO_STATS },
    };
    ctx.log(`${row.instance_id}: ${failed.message}`);
    await recordNoStart(row, ctx, failed, started);
    const now = Date.now();
    end = { ...failed, openedAt: now, agentEndedAt: now };
  }
  const finished = Date.now();
  const outcome = {
    instance_id: row.instance_id,
    exit_status: end.status,
    exit_message: end.message,
    patch_bytes: Buffer.byteLength(end.submission),
    ...end.stats,
    started_at: new Date(started).toISOString(),
    ended_at: new Date(finished).toISOString(),
    environment_seconds: seconds(end.openedAt - started),
    agent_seconds: seconds(end.agentEndedAt - end.openedAt),
    seconds: seconds(finished - started),
    ...(end.modelError ? { model_error: end.modelError } : {}),
  };
  return {
    outcome,
    submission: end.submission,
    ...(end.maskedLines ? { maskedLines: end.maskedLines } : {}),
  };
}
