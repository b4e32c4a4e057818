/**
 * Names in Redis. BullMQ's own keys live under its prefix (`patchloop:<queue>:...`); the few keys
 * patchloop adds sit beside them under `patchloop:pl:`.
 */
export const PREFIX = "patchloop";

/** The queue every coordinator enqueues into and every worker takes instances from. */
export const INSTANCE_QUEUE = "instances";

/** The queue a run's results go through to its coordinator (one per run). */
export const resultsQueueName = (run: string) => `results-${run}`;

/** Workers by their last heartbeat (sorted set: id -> ms since the epoch). */
export const WORKERS_KEY = `${PREFIX}:pl:workers`;
/** What each worker said in its last heartbeat (hash: id -> JSON). */
export const WORKER_INFO_KEY = `${PREFIX}:pl:worker-info`;
/** Runs by their coordinator's last heartbeat (sorted set: run id -> ms). */
export const RUNS_KEY = `${PREFIX}:pl:runs`;
/** What each run's coordinator said (hash: run id -> JSON). */
export const RUN_INFO_KEY = `${PREFIX}:pl:run-info`;
/** Set while a run's coordinator is interrupted (Ctrl-C): workers stop its instances. */
export const interruptKey = (run: string) => `${PREFIX}:pl:interrupt:${run}`;
/**
 * Channel on which a coordinator announces `interrupt <run>` (Ctrl-C) and `cancel <job id>` (a
 * repeat whose result is in): workers act at once; the marks below cover those that missed it.
 */
export const CONTROL_CHANNEL = `${PREFIX}:pl:control`;
/** Set when an instance job's result is in already: the worker still running it (a repeat) stops it. */
export const cancelKey = (jobId: string) => `${PREFIX}:pl:cancel:${jobId}`;
/** Set once a run's coordinator has written a result into its folder: the worker may forget it. */
export const ackKey = (delivery: string) => `${PREFIX}:pl:ack:${delivery}`;

/** Seconds between heartbeats; one older than three of them is gone. */
export const HEARTBEAT_SECONDS = 3;

/** How long acknowledgements and interrupt marks are kept. */
export const MARK_SECONDS = 7 * 24 * 3600;

/**
 * The job id of an instance of a run: `<run>.<instance id>` (BullMQ job ids cannot hold `:`;
 * `%` and `:` are escaped).
 */
export function instanceJobId(run: string, instanceId: string): string {
  return `${run}.${instanceId.replace(/%/g, "%25").replace(/:/g, "%3A").replace(/\//g, "%2F")}`;
}

/** The run of an instance job id (the part before the first dot). */
export function runOfJobId(jobId: string): string {
  return jobId.slice(0, jobId.indexOf("."));
}
