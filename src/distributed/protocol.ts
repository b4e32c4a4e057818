import type { AgentEvent } from "../agent/agent.js";
import type { ReplicaCounts, TaskOutcome, WorkerInfo, WorkerView } from "../batch/types.js";
import type { SwebenchInstance } from "../dataset/types.js";

/** What a job of the instance queue carries: the row and the resolved config, never a secret. */
export interface InstanceJob {
  run: string;
  row: SwebenchInstance;
  /** Which attempt of the instance (1-based) with `run.attempts` above 1; absent: the instance's one run. */
  attempt?: number;
  /** The coordinator's resolved config with every secret written as `***` (redactSecrets). */
  config: unknown;
  /** `model_name_or_path` of preds.json. */
  model_name: string;
  /** Deliveries of the job to a worker that may end without a result (a worker killed mid-job) before it is given up (`run.queue.deliveries`). */
  deliveries: number;
  /** patchloop's version on the coordinator: a worker of another version does not run it. */
  version: string;
  /** With `run.queue.secret_env`: the coordinator's signature of the other fields (signing.ts). */
  sig?: string;
}

/** An instance's result as a worker sends it: the outcome (naming the delivery and the worker) and its files. */
export interface OutcomeReport {
  outcome: TaskOutcome & { delivery: string; worker: string };
  /** The instance folder's files by name (`<id>.traj.json`, ...). */
  files: Record<string, string>;
  worker: WorkerInfo;
  /** Requests per model replica made for this instance. */
  replicas?: Record<string, ReplicaCounts>;
}

/**
 * A worker cannot run a job for a reason of its own (another version, no clone of the repository,
 * a secret it lacks): the job went back to the queue without using a delivery.
 */
export interface Refusal {
  instance_id: string;
  job: string;
  worker: WorkerInfo;
  reason: string;
}

/**
 * What a worker sends a run's results queue, as it is in Redis: a result, or a refusal; with
 * `run.queue.secret_env`, signed by the worker (signing.ts) over `run` and the other field.
 */
export type ResultJob =
  | { run: string; result: OutcomeReport; sig?: string }
  | { run: string; refusal: Refusal; sig?: string };

/** An outcome's message as the worker sends it (the spool keeps these until acknowledged). */
export type OutcomeJob = Extract<ResultJob, { result: OutcomeReport }>;

/** A message of a results queue once checked (result-check.ts), tagged by what it is. */
export type WorkerMessage =
  | { kind: "outcome"; run: string; report: OutcomeReport }
  | { kind: "refused"; run: string; refusal: Refusal };

/**
 * What a worker reports on an instance job while it runs (`job.updateProgress`): a start notice,
 * then the agent's own `model_call` and `model_retry` events, as they are.
 */
export type Progress =
  | { type: "start"; worker: WorkerInfo; delivery: string }
  | Extract<AgentEvent, { type: "model_call" | "model_retry" }>;

/** Whether an agent event goes to the coordinator (the ones its progress display and caps use). */
export function isReported(e: AgentEvent): e is Extract<Progress, { type: "model_call" | "model_retry" }> {
  return e.type === "model_call" || e.type === "model_retry";
}

/**
 * A worker logs each delivery of the instance job it starts (BullMQ's job log) before it runs:
 * the coordinator accepts a result only for a delivery logged so (result-check.ts).
 */
export function startLine(delivery: string, worker: WorkerInfo): string {
  return `start ${delivery} on ${worker.id}`;
}

/** A delivery a worker stopped and gave back to the queue (a shutdown, its engine down): it does not count. */
export function backLine(delivery: string, worker: WorkerInfo, why: string): string {
  return `back ${delivery} on ${worker.id}: ${why}`;
}

/** The deliveries a job's log names (see startLine). */
export function startedDeliveries(logs: readonly string[]): string[] {
  return logs.flatMap((l) => /^start (\S+)/.exec(l)?.[1] ?? []);
}

/** The deliveries given back (see backLine). */
export function handedBack(logs: readonly string[]): string[] {
  return logs.flatMap((l) => /^back (\S+)/.exec(l)?.[1] ?? []);
}

/** The worker id a start line names, by delivery. */
export function startedBy(logs: readonly string[]): Map<string, string> {
  const by = new Map<string, string>();
  for (const l of logs) {
    const m = /^start (\S+) on (\S+)$/.exec(l);
    if (m) by.set(m[1], m[2]);
  }
  return by;
}

/** A worker's heartbeat (what `patchloop queue status` and the coordinator's progress show). */
export interface Heartbeat extends WorkerView {
  /** Instance job ids it runs now. */
  jobs: string[];
  environment: string;
  version: string;
  started_at: string;
  /** Why it takes no job now (it keeps refusing them, or its engine does not answer); absent when it takes them. */
  paused?: string;
  /** What it could not run lately, and why (newest first). */
  cannot: Array<{ reason: string; jobs: number; last: string }>;
}

/** What a coordinator says about its run. */
export interface RunHeartbeat {
  run: string;
  host: string;
  pid: number;
  dir: string;
  started_at: string;
  /** Instances it waits for. */
  outstanding: number;
}
