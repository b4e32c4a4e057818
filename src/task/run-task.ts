import type { ActionRunner } from "../agent/action-runner.js";
import { type AgentEvent, type AgentHooks, type AgentResult, runAgent } from "../agent/agent.js";
import { createActionRunner } from "../agent/create-runner.js";
import { cleanPatch, samePatch } from "../agent/patch-filter.js";
import { TrajectoryRecorder } from "../agent/trajectory.js";
import type { ExitStatus } from "../agent/trajectory-types.js";
import { versions } from "../agent/versions.js";
import { workTreeDiff } from "../agent/work-tree-diff.js";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import type { Environment } from "../environments/types.js";
import type { Model } from "../models/types.js";
import { FileWriteError } from "../util/atomic-write.js";
import {
  abortableSleep,
  type InfraRetryPolicy,
  infraNote,
  isInfrastructureFailure,
  markTrajectory,
  retryDelayMs,
  watchReplies,
} from "./infra-retry.js";
import { type TaskOutcome, unstartedOutcome } from "./outcome.js";

/** The environment a task runs in, and how to let it go (container, sandbox, work tree). */
export interface TaskEnvironment {
  env: Environment;
  /** The commit the work tree starts at, when the opener made the checkout itself. */
  baseCommit?: string;
  /** Releases everything the environment holds; called exactly once, whatever happened. */
  cleanup(): Promise<void>;
}

/** One task: what the agent is asked, with what, where; the same for a batch, `run` and `demo`. */
export interface TaskSpec {
  config: Config;
  instanceId: string;
  /** Which attempt of the instance this is (1-based) when a batch runs several; absent: its only run. */
  attemptNumber?: number;
  /** The issue text. */
  task: string;
  /** Template fields (`instance.*`): a dataset row, or `{repo, instance_id, problem_statement}`. */
  instance: Record<string, unknown>;
  /**
   * The repository whose localization analysis a batch keeps between its tasks (held while it is
   * retained: src/localize/repo-analyses.ts); none: nothing is kept after this task.
   */
  repo?: string;
  /** The model (made when the environment is open, so a task that never starts makes none). */
  model: () => Model;
  /** `model_name` of a trajectory whose agent never ran. */
  modelName: string;
  /** Where the trajectory is saved after every step. */
  trajectoryPath: string;
  /** Opens the environment; a rejection ends the task as EnvironmentError (Interrupted when aborted). */
  open: (signal: AbortSignal) => Promise<TaskEnvironment>;
  /** Aborting ends the task as Interrupted. */
  signal: AbortSignal;
  /** How actions run (default: the config's tools); `patchloop run` wraps it for the person. */
  runner?: ActionRunner;
  /**
   * How the agent's calls reach the model (`patchloop run` puts the person in between); the
   * localization's re-rank calls the model itself.
   */
  wrapModel?: (model: Model) => Model;
  hooks?: AgentHooks;
  onEvent?: (event: AgentEvent) => void;
  /** Lines for the run's log (what went wrong around the agent). */
  log?: (line: string) => void;
  /** Warnings for the person (a batch also writes them to run.log): a patch that differs from the work tree. */
  warn?: (message: string) => void;
  /**
   * Gets the work tree's changes once the agent ended, read in its environment before it closes
   * (`patchloop run` carries them out); without it they are read only to check a submitted patch.
   */
  onChanges?: (changes: WorkTreeChanges) => void;
  /**
   * A batch's `run.infra_retry`: an environment or model server failure before the model's first
   * reply runs the task again (a fresh environment, after a growing wait) and is recorded as an
   * infrastructure failure; absent (`run`, `demo`): one run, nothing recorded.
   */
  infraRetry?: InfraRetryPolicy;
}

/** The work tree's diff against its base commit, or why it could not be read. */
export type WorkTreeChanges = { patch: string } | { error: string };

const seconds = (ms: number) => Math.round(ms) / 1000;

/** The work tree's changes once the agent ended: the diff it took at its exit (nothing ran in the tree since), else a new one. */
async function workTreeChanges(spec: TaskSpec, env: Environment, r: AgentResult): Promise<WorkTreeChanges> {
  if (r.exitDiff !== undefined) return { patch: r.exitDiff };
  if (!r.baseCommit) return { error: "the work tree's base commit is not known (not a git checkout?)" };
  return workTreeDiff(env, r.baseCommit, spec.config.environment.timeout).then(
    (patch) => ({ patch }),
    (err: Error) => ({ error: err.message }),
  );
}

/**
 * Reads the work tree's changes when they are wanted (`onChanges`), or to check a submitted patch:
 * the submission is what the model printed, and a commit, a stale diff or another base makes it
 * differ from what the work tree holds (the harness grades the submission). Returns whether it
 * differs (then warned); a patch with masked secrets is not compared.
 */
async function checkAgainstWorkTree(spec: TaskSpec, env: Environment, r: AgentResult): Promise<boolean> {
  const submitted = r.exitStatus === "Submitted" && !r.trajectory.info.submission_masked_lines;
  if (!spec.onChanges && !submitted) return false;
  const changes = await workTreeChanges(spec, env, r);
  spec.onChanges?.(changes);
  if (!submitted || !("patch" in changes) || samePatch(cleanPatch(changes.patch).patch, r.submission))
    return false;
  spec.warn?.(
    `${spec.instanceId}: the submitted patch differs from the work tree's changes (it is what gets graded); ` +
      "the model may have committed, or printed a diff against another base",
  );
  return true;
}

/** Writes the trajectory of a task whose agent never ran, saying why. */
async function recordUnstarted(spec: TaskSpec, outcome: TaskOutcome): Promise<void> {
  const rec = new TrajectoryRecorder(
    spec.trajectoryPath,
    {
      config: redactSecrets(spec.config),
      versions: versions(),
      timing: { started_at: outcome.started_at, ended_at: outcome.ended_at, wall_seconds: 0 },
      instance_id: spec.instanceId,
      ...(spec.attemptNumber !== undefined ? { attempt_number: spec.attemptNumber } : {}),
      model_name: spec.modelName,
    },
    { config: spec.config },
  );
  rec.info.exit_status = outcome.exit_status;
  rec.info.exit_message = outcome.exit_message;
  await rec.save();
}

/** A task that ended before its agent ran: its outcome, with a trajectory saying why. */
async function unstarted(spec: TaskSpec, started: number, message: string): Promise<TaskOutcome> {
  const status: ExitStatus = spec.signal.aborted ? "Interrupted" : "EnvironmentError";
  const outcome = unstartedOutcome(spec.instanceId, status, message, started, Date.now());
  spec.log?.(`${spec.instanceId}: ${message}`);
  await recordUnstarted(spec, outcome);
  return outcome;
}

/** The agent in an open environment: its localization (when configured), the loop, the outcome. */
async function inEnvironment(spec: TaskSpec, opened: TaskEnvironment, started: number, openedAt: number) {
  const model = spec.model();
  const localization = spec.config.agent.localize.enabled
    ? await (await import("../localize/agent-hook.js")).localizeForAgent(spec.config, opened.env, spec.task, {
        model,
        signal: spec.signal,
        repo: spec.repo,
      })
    : undefined;
  const r = await runAgent({
    localization,
    config: spec.config,
    model: spec.wrapModel ? spec.wrapModel(model) : model,
    env: opened.env,
    runner: spec.runner ?? createActionRunner(spec.config),
    task: spec.task,
    instance: spec.instance,
    instanceId: spec.instanceId,
    attemptNumber: spec.attemptNumber,
    trajectoryPath: spec.trajectoryPath,
    onEvent: spec.onEvent,
    hooks: spec.hooks,
    signal: spec.signal,
    baseCommit: opened.baseCommit,
  });
  const agentEndedAt = Date.now();
  const info = r.trajectory.info;
  if (info.submission_dropped)
    spec.warn?.(
      `${spec.instanceId}: left out of the submitted patch: ${info.submission_dropped.map((d) => `${d.path} (${d.reason})`).join(", ")}`,
    );
  const differs = await checkAgainstWorkTree(spec, opened.env, r);
  // ended_at and seconds are set once the environment is released
  const outcome: TaskOutcome = {
    instance_id: spec.instanceId,
    exit_status: r.exitStatus,
    exit_message: r.exitMessage,
    patch_bytes: Buffer.byteLength(r.submission),
    ...info.model_stats,
    started_at: new Date(started).toISOString(),
    ended_at: "",
    environment_seconds: seconds(openedAt - started),
    agent_seconds: seconds(agentEndedAt - openedAt),
    seconds: 0,
    ...(info.model_error ? { model_error: info.model_error } : {}),
    patch: r.submission,
    ...(info.submission_masked_lines ? { masked_lines: info.submission_masked_lines } : {}),
    ...(differs ? { patch_differs: true } : {}),
  };
  return outcome;
}

/**
 * Runs one task from start to end: opens its environment, runs the agent there (the trajectory
 * is saved after every step), always releases the environment, and returns its outcome. What goes
 * wrong (an environment that cannot be opened, anything thrown while the agent runs) becomes the
 * outcome's exit status, with a trajectory saying why; it rejects only when a file cannot be
 * written (FileWriteError: the caller stops). With `spec.infraRetry`, an infrastructure failure
 * before the model's first reply (src/task/infra-retry.ts) runs it again from the start, and the
 * outcome and trajectory record the retries (`infra_retries`) and a last run that failed so too
 * (`infrastructure: true`); once the model has replied, whatever ends the task is final.
 */
export async function runTask(spec: TaskSpec): Promise<TaskOutcome> {
  const policy = spec.infraRetry;
  if (!policy) return runOnce(spec);
  const sleep = policy.sleep ?? abortableSleep;
  const firstStart = Date.now();
  for (let retries = 0; ; retries++) {
    const watched = { replied: () => false };
    const outcome = await runOnce({
      ...spec,
      model: () => {
        const w = watchReplies(spec.model());
        watched.replied = w.replied;
        return w.model;
      },
    });
    const infra = !spec.signal.aborted && isInfrastructureFailure(outcome, watched.replied());
    const last = !infra || retries >= policy.retries || spec.signal.aborted;
    if (last) {
      const fields = {
        ...(retries > 0 ? { infra_retries: retries } : {}),
        ...(infra ? { infrastructure: true as const } : {}),
      };
      if (!fields.infra_retries && !fields.infrastructure) return outcome;
      await markTrajectory(spec.trajectoryPath, fields);
      spec.log?.(`${spec.instanceId}: ${outcome.exit_status}, ${infraNote(fields)}`);
      // started_at and seconds span every run (the waits included): what the task cost the batch
      const whole =
        retries > 0
          ? {
              started_at: new Date(firstStart).toISOString(),
              seconds: seconds(Date.parse(outcome.ended_at) - firstStart),
            }
          : {};
      return { ...outcome, ...whole, ...fields };
    }
    const waitMs = retryDelayMs(policy, retries + 1);
    spec.log?.(
      `${spec.instanceId}: infrastructure failure before the model's first reply (${outcome.exit_status}: ` +
        `${outcome.exit_message}); running it again in a fresh environment in ${waitMs / 1000}s ` +
        `(retry ${retries + 1} of ${policy.retries}, run.infra_retry)`,
    );
    await sleep(waitMs, spec.signal);
    if (spec.signal.aborted) {
      const at = Date.now();
      const stopped = await unstarted(
        spec,
        at,
        "interrupted while waiting to run again after an infrastructure failure",
      );
      return {
        ...stopped,
        ...(spec.attemptNumber !== undefined ? { attempt_number: spec.attemptNumber } : {}),
      };
    }
  }
}

/** One run of the task: its own environment, opened and released, and its own trajectory. */
async function runOnce(spec: TaskSpec): Promise<TaskOutcome> {
  const started = Date.now();
  let opened: TaskEnvironment;
  try {
    opened = await spec.open(spec.signal);
  } catch (err) {
    return unstarted(spec, started, `could not open the environment: ${(err as Error).message}`);
  }
  const openedAt = Date.now();
  let outcome: TaskOutcome;
  try {
    outcome = await inEnvironment(spec, opened, started, openedAt);
  } catch (err) {
    if (err instanceof FileWriteError) {
      await opened.cleanup().catch(() => undefined);
      throw err;
    }
    outcome = await unstarted(
      spec,
      started,
      `patchloop failed while running this instance: ${(err as Error).message}`,
    );
  }
  await opened
    .cleanup()
    .catch((err: Error) =>
      spec.log?.(`${spec.instanceId}: cleaning up the environment failed: ${err.message}`),
    );
  const ended = Date.now();
  return {
    ...outcome,
    ...(spec.attemptNumber !== undefined ? { attempt_number: spec.attemptNumber } : {}),
    ended_at: new Date(ended).toISOString(),
    seconds: seconds(ended - started),
  };
}
