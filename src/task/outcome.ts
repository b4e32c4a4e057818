import { type ModelStats, NO_STATS } from "../agent/model-stats.js";
import type { ExitStatus, ModelErrorInfo } from "../agent/trajectory-types.js";

/**
 * What one task (one run of the agent on one instance) gave: made once by `runTask`, and carried
 * as it is, in this casing, to every place that writes it: run.json (every field but the patch),
 * preds.json (`model_patch`), exit_statuses.yaml, the summary and the queue between a worker and
 * its coordinator.
 */
export interface TaskOutcome extends ModelStats {
  instance_id: string;
  /** Which attempt of the instance (1-based) in a batch with `run.attempts` above 1; absent: its only run. */
  attempt_number?: number;
  exit_status: ExitStatus;
  exit_message: string;
  /** How the model failed, for a `ModelError`. */
  model_error?: ModelErrorInfo;
  /** The patch: the submitted text, or the work tree's diff (lines holding a known secret masked). */
  patch: string;
  /** Bytes of `patch`. */
  patch_bytes: number;
  /** Lines of the patch masked for holding a secret value; absent when none. */
  masked_lines?: number;
  /** The submitted patch is not the work tree's diff (what gets graded is the submission); absent otherwise. */
  patch_differs?: boolean;
  /**
   * Times a batch ran the task again, each in a fresh environment, after an infrastructure failure
   * before the model's first reply (`run.infra_retry`, src/task/infra-retry.ts); absent: none.
   */
  infra_retries?: number;
  /**
   * The task ended with an infrastructure failure (its environment or model server failed before
   * the model replied) on its last run too: not the model's doing; absent otherwise.
   */
  infrastructure?: true;
  started_at: string;
  ended_at: string;
  /** Seconds to open the environment (container start, work tree). */
  environment_seconds: number;
  /** Seconds of the agent loop. */
  agent_seconds: number;
  /** Seconds from start to end, cleanup included. */
  seconds: number;
  /** The `patchloop worker` that ran it (`host:pid:start`); absent when this process did. */
  worker?: string;
  /**
   * The queue's delivery of the instance's job to a worker that gave this result (remote runs); a
   * result is accepted once.
   */
  delivery?: string;
}

/** The outcome of a task that never reached the agent (its environment could not be opened, a queue gave it up). */
export function unstartedOutcome(
  instanceId: string,
  status: ExitStatus,
  message: string,
  startedAt: number,
  endedAt: number = startedAt,
): TaskOutcome {
  const seconds = Math.round(endedAt - startedAt) / 1000;
  return {
    instance_id: instanceId,
    exit_status: status,
    exit_message: message,
    patch_bytes: 0,
    ...NO_STATS,
    started_at: new Date(startedAt).toISOString(),
    ended_at: new Date(endedAt).toISOString(),
    environment_seconds: seconds,
    agent_seconds: 0,
    seconds,
    patch: "",
  };
}

/** An outcome's line in run.json: everything but the instance id (the key) and the patch (preds.json's). */
export function recordOf(outcome: TaskOutcome): Omit<TaskOutcome, "instance_id" | "patch"> {
  const { instance_id: _, patch: __, ...record } = outcome;
  return record;
}
