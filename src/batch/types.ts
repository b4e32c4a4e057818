import type { AgentEvent } from "../agent/agent.js";
import type { ModelStats } from "../agent/model-stats.js";
import type { ExitStatus } from "../agent/trajectory-types.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import type { ReplicaCounts } from "../models/replica-pool.js";
import type { TaskOutcome } from "../task/outcome.js";
import type { TaskEnvironment } from "../task/run-task.js";

/** The environment of one instance and how to release it (container, sandbox, work tree). */
export type InstanceEnvironment = TaskEnvironment;

/**
 * Opens the environment of one instance (with `config`: the run's, or its attempt's variant of
 * it); rejects with a readable Error when it cannot.
 */
export type EnvironmentOpener = (
  row: SwebenchInstance,
  signal: AbortSignal,
  config: Config,
) => Promise<InstanceEnvironment>;

/**
 * One unit of a batch's work: an instance, or one attempt of it when `run.attempts` is above 1
 * (docs/attempts.md). What a dispatcher runs, what the run folder accepts once, what resumes.
 */
export interface WorkUnit {
  row: SwebenchInstance;
  /** 1-based, with several attempts per instance (its folder `DIR/<id>/attempt-<k>/`); absent: the instance's one run (`DIR/<id>/`). */
  attempt?: number;
}

/** A unit's name: `<id>`, or `<id>/attempt-<k>` (also its folder under the run folder). */
export function unitKey(id: string, attempt?: number): string {
  return attempt === undefined ? id : `${id}/attempt-${attempt}`;
}

/** Which `patchloop worker` ran an instance. */
export interface WorkerInfo {
  /** `host:pid:start` of the worker process (unique while it lives). */
  id: string;
  host: string;
  pid: number;
}

export type { ReplicaCounts, TaskOutcome };

/**
 * What running one instance gives the run folder: its outcome (the same type whether it ran in
 * this process or on a remote worker, which sets `outcome.worker` and `outcome.delivery`), the
 * requests it sent to each model replica, and what came with it from a remote worker.
 */
export interface InstanceResult {
  outcome: TaskOutcome;
  /**
   * The files of the instance's folder (`<id>.traj.json`, ...) by name, as a remote worker wrote
   * them; absent when the agent wrote them into the run folder itself (this process).
   */
  files?: Record<string, string>;
  /** The remote worker that ran it; absent for this process. */
  worker?: WorkerInfo;
  /** Requests per model replica made for this instance (`model.base_url` as a list); absent with one server. */
  replicas?: Record<string, ReplicaCounts>;
}

/** What the scheduler hands a unit's progress to. */
export interface DispatchHooks {
  /** The unit started (on `worker` when remote). */
  onStart(worker?: WorkerInfo): void;
  onAgentEvent(event: AgentEvent): void;
}

/**
 * Where a dispatcher in this process puts each instance's folder and its lines: the run folder
 * (run-folder.ts), or a `patchloop worker`'s scratch folder (src/distributed/scratch-folder.ts).
 */
export interface InstanceSink {
  /** The folder under which `<id>/<id>.traj.json` (or `<id>/attempt-<k>/<id>.traj.json`) is written. */
  readonly dir: string;
  log(line: string): void;
  warn(message: string): void;
  /**
   * The unit's folder is about to be written anew: the run folder moves what its earlier run
   * spent to run.json (the caps still count it); a scratch folder empties it.
   */
  retire(unit: WorkUnit): Promise<void>;
}

/**
 * Where instances run: in this process (local-dispatch.ts) or on `patchloop worker` processes
 * through a queue (src/distributed/coordinator-dispatch.ts).
 */
export interface Dispatcher {
  /** Instances that may run at once; the scheduler starts no more. Infinity: as many as are given. */
  readonly slots: number;
  /**
   * Runs one instance to its result; null when it was withdrawn before it started (stopStarting).
   * Aborting `signal` interrupts this instance alone (it ends as `Interrupted`). Rejects only when
   * the run cannot go on (a file of the run that cannot be written).
   */
  run(unit: WorkUnit, hooks: DispatchHooks, signal?: AbortSignal): Promise<InstanceResult | null>;
  /**
   * The scheduler is done with a result `run` gave: `written` when the folder holds it (or dropped
   * it as a repeat), false when writing failed (a queue then keeps it for the next coordinator).
   */
  settle(result: InstanceResult, written: boolean): Promise<void>;
  /** Nothing new starts: what has not started is withdrawn (its `run` resolves null). */
  stopStarting(): Promise<void>;
  /**
   * One unit handed over but not started is taken back (its `run` resolves null); true when it
   * was. A dispatcher that starts what it is given at once (in this process) has none.
   */
  takeBack?(unit: WorkUnit): Promise<boolean>;
  /** The running instances are interrupted (they end as `Interrupted`). */
  interrupt(): void;
  /** Releases what the dispatcher holds (work trees, connections). */
  close(): Promise<void>;
}

/** Why a batch stopped before starting every instance; null when it did not. */
export type StopReason = "interrupted" | "cost_limit" | "call_limit" | "model_unavailable" | null;

/** What `runBatch` returns. */
export interface BatchResult {
  /** Instances (attempts, with `run.attempts` above 1) run now, in completion order. */
  outcomes: TaskOutcome[];
  /** Instances skipped because an earlier run gave them a final exit status. */
  skipped: string[];
  /** Selected instances that were not started (stopped early). */
  notStarted: string[];
  stoppedBy: StopReason;
  /** Exit status of every selected instance that has one (earlier runs included). */
  statuses: Record<string, ExitStatus>;
  /**
   * Selected instances a re-run of the same command runs again: not started, or ended
   * `Interrupted`, `EnvironmentError` or `ModelError` with retries exhausted (see `mustRunAgain`).
   */
  pending: string[];
  /**
   * Selected instances whose result is an infrastructure failure (`run.infra_retry`: the
   * environment or model server failed before the model's first reply); the summary counts them
   * apart from the model's failures. Absent: none known.
   */
  infrastructure?: string[];
  /** Totals over this run's instances. */
  totals: ModelStats;
  wallSeconds: number;
  /** With `run.attempts` above 1: what the counts of attempts need (the summary counts both). */
  attempts?: AttemptCounts;
}

/** A batch's attempts, beside its instances (`run.attempts` above 1). */
export interface AttemptCounts {
  /** `run.attempts`. */
  perInstance: number;
  /** Attempts with a final status kept from earlier runs (not run now), by `<id>/attempt-<k>`. */
  kept: Record<string, ExitStatus>;
  /** Attempts ended in this run that a re-run starts again, by `<id>/attempt-<k>`. */
  again: string[];
  /** Attempts that were to run and did not start (a cap, Ctrl-C, a queue drained). */
  notStarted: number;
  /** Attempts the attempt policy did not start (agreement, cost limit), by `<id>/attempt-<k>`, with why. */
  stopped: Record<string, string>;
}

/** Progress events of a batch (the progress display and tests consume these). */
export type BatchEvent =
  /**
   * What runs: units (instances, or with `attempts` per instance above 1, attempts): `total` =
   * `skipped` (kept from earlier runs) + `todo`.
   */
  | { type: "planned"; total: number; skipped: number; todo: number; attempts?: number }
  | { type: "instance_start"; instance_id: string; attempt?: number; worker?: WorkerInfo }
  | { type: "agent"; instance_id: string; attempt?: number; event: AgentEvent }
  /** A unit ended: `again` when a re-run starts it again; `replacedBy`: the attempt that replaces it. */
  | { type: "instance_end"; outcome: TaskOutcome; again?: boolean; replacedBy?: number }
  /** The attempt policy added attempt `attempt` to replace the failed attempt `replaces`. */
  | { type: "attempt_added"; instance_id: string; attempt: number; replaces: number }
  /** The attempt policy does not start this planned attempt, and why (agreement, cost limit). */
  | { type: "attempt_skipped"; instance_id: string; attempt: number; reason: string }
  | { type: "stopping"; reason: Exclude<StopReason, null> }
  /** The remote workers (queue runs), whenever that list changes. */
  | { type: "workers"; workers: WorkerView[] };

/** A `patchloop worker` process as the coordinator sees it (its heartbeat). */
export interface WorkerView {
  id: string;
  host: string;
  pid: number;
  /** Instances it runs at once (`-w`). */
  slots: number;
  /** Instances it runs now (of any run). */
  running: number;
}
