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
}

/** What a worker sends a run's results queue: the instance's result and its attempt. */
export interface ResultJob {
  run: string;
  result: InstanceResult & { attempt: string };
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
