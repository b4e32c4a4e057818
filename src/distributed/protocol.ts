import type { InstanceResult, WorkerInfo, WorkerView } from "../swebench/batch/types.js";
import type { SwebenchInstance } from "../swebench/types.js";

/** What a job of the instance queue carries: the row and the resolved config, never a secret. */
export interface InstanceJob {
  run: string;
  row: SwebenchInstance;
  /** The coordinator's resolved config with every secret written as `***` (redactSecrets). */
  config: unknown;
  /** `model_name_or_path` of preds.json. */
  model_name: string;
  /** Runs of the job (a worker killed mid-job counts) before it is given up (`run.queue.attempts`). */
  attempts: number;
  /** patchloop's version on the coordinator, for the worker's messages. */
  version: string;
  /** With `run.queue.secret_env`: the coordinator's signature of the other fields (signing.ts). */
  sig?: string;
}

/** What a worker sends a run's results queue: the instance's result (its outcome names the attempt and the worker). */
export interface ResultJob {
  run: string;
  result: InstanceResult & { outcome: { attempt: string; worker: string }; worker: WorkerInfo };
  /** With `run.queue.secret_env`: the worker's signature of `run` and `result` (signing.ts). */
  sig?: string;
}

/**
 * A worker logs each attempt it starts on the instance job (BullMQ's job log) before it runs:
 * the coordinator accepts a result only for an attempt logged so (result-check.ts).
 */
export function startLine(attempt: string, worker: WorkerInfo): string {
  return `start ${attempt} on ${worker.id}`;
}

/** The attempts a job's log names (see startLine). */
export function startedAttempts(logs: readonly string[]): string[] {
  return logs.flatMap((l) => /^start (\S+)/.exec(l)?.[1] ?? []);
}

/** What a worker reports while an instance runs (`job.updateProgress`). */
export type ProgressReport =
  | { t: "start"; worker: WorkerInfo; attempt: string }
  | { t: "call"; step: number; prompt: number; completion: number; cost: number; attempts: number }
  | { t: "retry"; step: number; attempt: number; max: number; wait: number; reason: string };

/** A worker's heartbeat (what `patchloop queue status` and the coordinator's progress show). */
export interface Heartbeat extends WorkerView {
  /** Instance job ids it runs now. */
  jobs: string[];
  environment: string;
  version: string;
  started_at: string;
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
