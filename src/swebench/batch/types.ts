import type { AgentEvent } from "../../agent/agent.js";
import type { ExitStatus, ModelErrorInfo } from "../../agent/trajectory-types.js";
import type { Config } from "../../config/schema.js";
import type { Environment } from "../../environments/types.js";
import type { ReplicaCounts } from "../../models/replica-pool.js";
import type { Model } from "../../models/types.js";
import type { SwebenchInstance } from "../types.js";
import type { RunFolder } from "./run-folder.js";

/** The environment of one instance and how to release it (container, sandbox, work tree). */
export interface InstanceEnvironment {
  env: Environment;
  /** The commit the work tree starts at, when the opener made the checkout itself. */
  baseCommit?: string;
  /** Releases everything the environment holds; called exactly once, whatever happened. */
  cleanup(): Promise<void>;
}

/** Opens the environment of one instance; rejects with a readable Error when it cannot. */
export type EnvironmentOpener = (row: SwebenchInstance, signal: AbortSignal) => Promise<InstanceEnvironment>;

/** What a batch run needs. Only `config`, `instances` and `outputDir` are required. */
export interface BatchOptions {
  /** The resolved config every instance runs with (recorded, secrets redacted, in run.json). */
  config: Config;
  /** The selected rows, in the order they are started. */
  instances: SwebenchInstance[];
  /** The run folder (README.md "Outputs", src/swebench/batch/README.md). */
  outputDir: string;
  /** Instances run at once (default 1). */
  workers?: number;
  /** The model of one instance (default: `createModel(config.model)` per instance). */
  modelFor?: (row: SwebenchInstance) => Model;
  /** Opens the environment of one instance (default: `openInstanceEnvironment` with `reposDir`). */
  openEnvironment?: EnvironmentOpener;
  /** Folder of `owner__repo` clones for the local and bwrap environments. */
  reposDir?: string;
  /** Run every selected instance again, even those with a final exit status. */
  redoExisting?: boolean;
  /**
   * Resume a folder whose results came from another config (see config-drift.ts); without it that
   * is a BatchInputError listing the changes.
   */
  allowConfigChange?: boolean;
  /** USD over all instances (this and earlier runs of the folder) after which nothing new starts; 0/undefined: none. */
  costLimit?: number;
  /** Model calls over all instances after which nothing new starts; 0/undefined: none. */
  callLimit?: number;
  /** Aborting stops launching instances and interrupts the running ones (saved as `Interrupted`). */
  signal?: AbortSignal;
  /** Receives progress: every agent event of every instance, and instance starts and ends. */
  onEvent?: (event: BatchEvent) => void;
  /** Receives warnings meant for the user (also written to run.log). */
  warn?: (message: string) => void;
  /** Extra facts for run.json (e.g. the command line, the dataset and selection). */
  runInfo?: Record<string, unknown>;
  /** Label of this run's containers (`patchloop.run`); default `swebench-<pid>-<time>`. Recorded in run.json. */
  runId?: string;
  /** Name of the model for preds.json (default `config.model.model_name`). */
  modelName?: string;
  /**
   * Where the instances run (default: in this process, `workers` at a time, see local-dispatch.ts);
   * the queue dispatcher (src/distributed/) hands them to `patchloop worker` processes. Called once
   * the folder is open and locked, with its run id.
   */
  dispatch?: (folder: RunFolder) => Promise<Dispatcher>;
}

/** Which `patchloop worker` ran an instance. */
export interface WorkerInfo {
  /** `host:pid:start` of the worker process (unique while it lives). */
  id: string;
  host: string;
  pid: number;
}

export type { ReplicaCounts };

/**
 * What running one instance gives the run folder: the same type whether it ran in this process or
 * on a remote worker (run-folder.ts records it).
 */
export interface InstanceResult {
  outcome: InstanceOutcome;
  /** The patch for preds.json (lines holding a known secret already masked). */
  submission: string;
  /** Lines of the patch masked for holding a secret. */
  maskedLines?: number;
  /**
   * The files of the instance's folder (`<id>.traj.json`, ...) by name, as a remote worker wrote
   * them; absent when the agent wrote them into the run folder itself (this process).
   */
  files?: Record<string, string>;
  /** The remote worker that ran it; absent for this process. */
  worker?: WorkerInfo;
  /** The attempt that gave this result (remote); the folder accepts one result per instance and run. */
  attempt?: string;
  /** Requests per model replica made for this instance (remote; this process reports its pool). */
  replicas?: Record<string, ReplicaCounts>;
}

/** What the scheduler hands an instance's progress to. */
export interface DispatchHooks {
  /** The instance started (on `worker` when remote). */
  onStart(instanceId: string, worker?: WorkerInfo): void;
  onAgentEvent(instanceId: string, event: AgentEvent): void;
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
   * Rejects only when the run cannot go on (a file of the run that cannot be written).
   */
  run(row: SwebenchInstance, hooks: DispatchHooks): Promise<InstanceResult | null>;
  /**
   * The scheduler is done with a result `run` gave: `written` when the folder holds it (or dropped
   * it as a repeat), false when writing failed (a queue then keeps it for the next coordinator).
   */
  settle(result: InstanceResult, written: boolean): Promise<void>;
  /** Nothing new starts: what has not started is withdrawn (its `run` resolves null). */
  stopStarting(): Promise<void>;
  /** The running instances are interrupted (they end as `Interrupted`). */
  interrupt(): void;
  /** Requests per model replica so far, for run.json (this process's pool); null when none. */
  replicaCounts(): Record<string, ReplicaCounts> | null;
  /** Releases what the dispatcher holds (work trees, connections). */
  close(): Promise<void>;
}

/** What happened to one instance in this run. */
export interface InstanceOutcome {
  instance_id: string;
  exit_status: ExitStatus;
  exit_message: string;
  /** Bytes of the patch written to preds.json. */
  patch_bytes: number;
  api_calls: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  started_at: string;
  ended_at: string;
  /** Seconds to open the environment (container start, work tree). */
  environment_seconds: number;
  /** Seconds of the agent loop. */
  agent_seconds: number;
  /** Seconds from start to end, cleanup included. */
  seconds: number;
  /** How the model failed, for a `ModelError`. */
  model_error?: ModelErrorInfo;
  /**
   * In run.json only: runs in a row that ended with the server failing on this instance
   * (ModelError after retries); at MAX_OUTAGE_RUNS the result is final.
   */
  model_error_runs?: number;
  /** In run.json only: model calls and USD of this instance's earlier attempts (runs it was run again). */
  earlier_calls?: number;
  earlier_cost?: number;
  /** The remote worker that ran it (`host:pid:start`); absent when this process did. */
  worker?: string;
  /** In run.json only: the attempt whose result this is (remote runs); a result is accepted once. */
  attempt?: string;
}

/** Why a batch stopped before starting every instance; null when it did not. */
export type StopReason = "interrupted" | "cost_limit" | "call_limit" | "model_unavailable" | null;

/** What `runBatch` returns. */
export interface BatchResult {
  /** Instances run now, in completion order. */
  outcomes: InstanceOutcome[];
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
  /** Totals over this run's instances. */
  totals: { api_calls: number; cost: number; prompt_tokens: number; completion_tokens: number };
  wallSeconds: number;
}

/** Progress events of a batch (the progress display and tests consume these). */
export type BatchEvent =
  | { type: "planned"; total: number; skipped: number; todo: number }
  | { type: "instance_start"; instance_id: string; worker?: WorkerInfo }
  | { type: "agent"; instance_id: string; event: AgentEvent }
  | { type: "instance_end"; outcome: InstanceOutcome }
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
