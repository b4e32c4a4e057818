import { hostname } from "node:os";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { AgentEvent } from "../agent/agent.js";
import type { Trajectory } from "../agent/trajectory-types.js";
import { versions } from "../agent/versions.js";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import type { RunFolder } from "../swebench/batch/run-folder.js";
import type { Dispatcher, DispatchHooks, InstanceResult, WorkerView } from "../swebench/batch/types.js";
import type { SwebenchInstance } from "../swebench/types.js";
import { NO_STATS, unstartedOutcome } from "../task/outcome.js";
import { VERSION } from "../version.js";
import { shown } from "./check-text.js";
import {
  ackKey,
  CONTROL_CHANNEL,
  cancelKey,
  HEARTBEAT_SECONDS,
  INSTANCE_QUEUE,
  instanceJobId,
  interruptKey,
  MARK_SECONDS,
  PREFIX,
  RUN_INFO_KEY,
  RUNS_KEY,
  resultsQueueName,
} from "./keys.js";
import { type InstanceJob, type ProgressReport, type RunHeartbeat, startedAttempts } from "./protocol.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { reachable, watchRedis } from "./redis-watch.js";
import { attemptProblem, readProgress, readResult } from "./result-check.js";
import { queueSecret, signature } from "./signing.js";
import { listWorkers } from "./workers.js";

/** What the coordinator's dispatcher needs. */
export interface CoordinatorOptions {
  queue: QueueAddress;
  config: Config;
  modelName: string;
  /** Messages for the person (Redis away and back, enqueue facts). */
  say: (line: string) => void;
  /** The workers seen, whenever that list changes. */
  onWorkers?: (workers: WorkerView[]) => void;
}

/** One instance the coordinator waits for. */
interface Pending {
  row: SwebenchInstance;
  jobId: string;
  hooks: DispatchHooks;
  resolve: (result: InstanceResult | null) => void;
  /** A worker said it started (and which attempt). */
  started: boolean;
  /** `run` has resolved; further results of the instance are repeats. */
  done: boolean;
  /** Its job is in the queue (added now, or kept from an earlier coordinator). */
  queued: boolean;
  /** Resolved by `settle`: the result job may complete (acknowledged) or must stay (false). */
  written?: (ok: boolean) => void;
}

/** Milliseconds a coordinator's lock on a result job lasts unrenewed. */
const RESULT_LOCK_MS = 10_000;

/**
 * Seconds between the coordinator's checks of what its jobs became, for events it missed (while
 * Redis was away or the events stream was trimmed): failed, or removed by hand.
 */
const RECONCILE_SECONDS = 30;

/** A result of a job BullMQ gave up on (attempts spent): an EnvironmentError with a trajectory saying why. */
function givenUp(
  row: SwebenchInstance,
  jobConfig: unknown,
  modelName: string,
  reason: string,
  jobId: string,
): InstanceResult {
  const now = Date.now();
  const outcome = unstartedOutcome(
    row.instance_id,
    "EnvironmentError",
    `the queue gave this instance up: ${reason}`,
    now,
  );
  const trajectory: Trajectory = {
    trajectory_format: "patchloop-1",
    info: {
      exit_status: outcome.exit_status,
      exit_message: outcome.exit_message,
      submission: "",
      model_stats: { ...NO_STATS },
      config: jobConfig,
      versions: versions(),
      timing: { started_at: outcome.started_at, ended_at: outcome.ended_at, wall_seconds: 0 },
      instance_id: row.instance_id,
      model_name: modelName,
    },
    messages: [],
  };
  return {
    outcome: { ...outcome, attempt: `${jobId}.given-up` },
    files: { [`${row.instance_id}.traj.json`]: `${JSON.stringify(trajectory, null, 2)}\n` },
  };
}

/** The agent event a worker's progress report stands for. */
function agentEvent(p: ProgressReport): AgentEvent | null {
  if (p.t === "call")
    return {
      type: "model_call",
      step: p.step,
      usage: { promptTokens: p.prompt, completionTokens: p.completion },
      cost: p.cost,
      attempts: p.attempts,
    };
  if (p.t === "retry")
    return {
      type: "model_retry",
      step: p.step,
      attempt: p.attempt,
      maxAttempts: p.max,
      waitSeconds: p.wait,
      reason: p.reason,
    };
  return null;
}

/**
 * Runs a folder's instances on `patchloop worker` processes through BullMQ: every instance is a
 * job of the shared instance queue (id `<run>.<instance>`, so that a restarted coordinator never
 * enqueues one twice), carrying the row and the config with its secrets masked; workers report
 * progress on the job (QueueEvents) and send each result to the run's own results queue, which
 * this process consumes with a BullMQ worker: a result is acknowledged (its job completed, an ack
 * mark set for the worker, the instance job removed) only once the folder holds it.
 */
export async function createCoordinatorDispatcher(
  o: CoordinatorOptions,
  folder: RunFolder,
): Promise<Dispatcher> {
  const secretEnv = o.config.run.queue.secret_env;
  const secret = queueSecret(secretEnv);
  const connection = redisOptions(o.queue);
  const redis = new Redis({ ...connection, lazyConnect: false });
  watchRedis(redis, o.queue.shown, o.say, "finished results stay in the queue and on the workers");
  redis.on("error", () => undefined);
  try {
    await reachable(redis, o.queue.shown);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  // A run id kept in run.json: the same command again resumes the same jobs.
  const earlier = folder.earlierInfo("queue") as { run?: unknown } | undefined;
  const run = typeof earlier?.run === "string" ? earlier.run : folder.runId.replace(/[^A-Za-z0-9_-]/g, "-");
  folder.setInfo("queue", { url: o.queue.shown, run });
  const queue = new Queue(INSTANCE_QUEUE, { connection, prefix: PREFIX });
  const events = new QueueEvents(INSTANCE_QUEUE, { connection, prefix: PREFIX });
  queue.on("error", () => undefined);
  events.on("error", () => undefined);
  await redis.del(interruptKey(run));
  const pending = new Map<string, Pending>();
  const byJob = new Map<string, Pending>();
  const toRemove = new Set<string>();
  const jobConfig = redactSecrets(o.config);
  let closing = false;
  folder.log(`queue ${o.queue.shown}: run ${run}`);
  o.say(`queue ${o.queue.shown}: run ${run} (patchloop queue status --queue ${o.queue.shown} --run ${run})`);

  /** A job as it goes into the queue: signed when the run has a secret (signing.ts). */
  const signed = (job: InstanceJob): InstanceJob =>
    secret ? { ...job, sig: signature(secret, "job", job) } : job;

  const finish = (p: Pending, result: InstanceResult | null) => {
    if (p.done) return;
    p.done = true;
    p.resolve(result);
  };

  /**
   * Removes an instance job whose result the folder holds. One still running (a repeat of an
   * attempt whose worker was taken for gone) is told to stop, and removed once it ends.
   */
  const removeJob = async (jobId: string) => {
    try {
      const state = await queue.getJobState(jobId);
      if (state === "active") {
        await redis.set(cancelKey(jobId), "1", "EX", MARK_SECONDS);
        await redis.publish(CONTROL_CHANNEL, `cancel ${jobId}`);
      } else await queue.remove(jobId);
      if ((await queue.getJobState(jobId)) === "unknown") {
        toRemove.delete(jobId);
        await redis.del(cancelKey(jobId));
        return;
      }
    } catch {
      // locked (its worker is completing it) or Redis away: tried again
    }
    toRemove.add(jobId);
  };

  /** This run's jobs in the queue whose instance it does not wait for (left by a killed coordinator). */
  const leftovers = async (): Promise<string[]> => {
    const ids = await queue.getRanges(["waiting", "delayed", "prioritized", "active", "completed", "failed"]);
    const mine = [...pending.values()].filter((p) => !p.done).map((p) => p.jobId);
    const waited = new Set(mine);
    return [...new Set(ids)].filter((id) => id.startsWith(`${run}.`) && !waited.has(id));
  };

  /**
   * A result from the queue (anyone who can write to Redis may have sent it): checked (shape,
   * run, signature), then taken only for an instance this run waits for and an attempt a worker
   * logged on its job; anything else is logged and dropped, and never replaces a recorded result.
   */
  const onResult = async (job: Job<unknown>) => {
    const checked = readResult(job.data, run, secret, secretEnv);
    if (!checked.ok) {
      folder.log(`queue: a result was dropped (result job ${shown(job.id)}): ${checked.problem}`);
      return;
    }
    const result = checked.job.result;
    const p = pending.get(result.outcome.instance_id);
    const started = p && !p.done ? startedAttempts((await queue.getJobLogs(p.jobId)).logs) : [];
    const stale = result.outcome.attempt === folder.recordedAttempt(result.outcome.instance_id);
    if (!p || p.done || stale) {
      folder.log(
        `${result.outcome.instance_id}: a result of attempt ${result.outcome.attempt} was dropped: ` +
          (stale
            ? "the folder holds it already"
            : "its instance has its result in this run, or is not part of it"),
      );
      await redis.set(ackKey(result.outcome.attempt), "1", "EX", MARK_SECONDS);
      return;
    }
    const unknown = attemptProblem(result.outcome.attempt, p.jobId, started);
    if (unknown) {
      folder.log(
        `${result.outcome.instance_id}: a result of attempt ${result.outcome.attempt} was dropped: ${unknown}`,
      );
      return;
    }
    const written = new Promise<boolean>((resolve) => {
      p.written = resolve;
    });
    finish(p, result);
    if (!(await written)) throw new Error(`the run folder could not record ${result.outcome.instance_id}`);
  };
  const results = new Worker<unknown>(resultsQueueName(run), onResult, {
    connection,
    prefix: PREFIX,
    concurrency: 16,
    // A coordinator killed while recording leaves its result jobs locked: the next one takes them
    // back after this long (and records them once: the folder knows the attempt).
    lockDuration: RESULT_LOCK_MS,
    stalledInterval: RESULT_LOCK_MS / 2,
  });
  results.on("error", () => undefined);

  events.on("progress", ({ jobId, data }) => {
    const p = byJob.get(jobId);
    const report = readProgress(data);
    if (!p || p.done || !report) return;
    if (report.t === "start") {
      p.started = true;
      p.hooks.onStart(p.row.instance_id, report.worker);
      return;
    }
    const e = agentEvent(report);
    if (e) p.hooks.onAgentEvent(p.row.instance_id, e);
  });
  events.on("failed", ({ jobId, failedReason }) => {
    const p = byJob.get(jobId);
    if (p && !p.done) finish(p, givenUp(p.row, jobConfig, o.modelName, failedReason, jobId));
  });
  events.on("removed", ({ jobId }) => {
    const p = byJob.get(jobId);
    if (p && !p.done && !p.started && !toRemove.has(jobId)) {
      folder.log(`${p.row.instance_id}: its job was removed from the queue before it started`);
      finish(p, null);
    }
  });

  // Adds are gathered and sent together (addBulk); a job left by an earlier coordinator of this
  // run is kept when it waits or runs, and replaced when it ended without being recorded.
  let batch: Pending[] = [];
  let flushing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const now = batch;
    batch = [];
    if (now.length === 0) return;
    const states = await Promise.all(now.map((p) => queue.getJobState(p.jobId)));
    const add: Pending[] = [];
    for (const [i, p] of now.entries()) {
      const state = states[i];
      if (state === "unknown") add.push(p);
      else if (state === "completed" || state === "failed") {
        const job = await queue.getJob(p.jobId);
        const attempt = (job?.returnvalue as { attempt?: string } | undefined)?.attempt;
        // Completed and not acknowledged: its result waits in the results queue.
        if (state === "completed" && attempt && !(await redis.exists(ackKey(attempt)))) continue;
        await queue.remove(p.jobId);
        add.push(p);
      } else if (state === "active") p.started = true;
    }
    for (const p of now) if (!add.includes(p)) p.queued = true;
    const kept = now.length - add.length;
    if (kept > 0) folder.log(`queue: ${kept} instance(s) of run ${run} were in the queue already (kept)`);
    for (let i = 0; i < add.length; i += 500) {
      await queue.addBulk(
        add.slice(i, i + 500).map((p) => ({
          name: "instance",
          data: signed({
            run,
            row: p.row,
            config: jobConfig,
            model_name: o.modelName,
            attempts: o.config.run.queue.attempts,
            version: VERSION,
          }),
          opts: {
            jobId: p.jobId,
            attempts: o.config.run.queue.attempts,
            backoff: { type: "fixed", delay: 1000 },
            removeOnComplete: false,
            removeOnFail: false,
          },
        })),
      );
    }
    for (const p of add) p.queued = true;
    if (!swept) {
      swept = true;
      for (const id of await leftovers()) await removeJob(id);
    }
  };
  let swept = false;
  const schedule = () => {
    if (batch.length === 1) setImmediate(() => (flushing = flushing.then(flush)));
  };

  // Every few seconds: the run's heartbeat, the workers, and what became of jobs whose events were missed.
  let lastWorkers = "";
  let lastStates = 0;
  const reconcile = async () => {
    const beat: RunHeartbeat = {
      run,
      host: hostname(),
      pid: process.pid,
      dir: folder.dir,
      started_at: new Date().toISOString(),
      outstanding: [...pending.values()].filter((p) => !p.done).length,
    };
    await redis.multi().zadd(RUNS_KEY, Date.now(), run).hset(RUN_INFO_KEY, run, JSON.stringify(beat)).exec();
    const workers = await listWorkers(redis);
    const shown = JSON.stringify(workers);
    if (shown !== lastWorkers) {
      lastWorkers = shown;
      o.onWorkers?.(workers);
    }
    for (const id of [...toRemove]) await removeJob(id);
    if (Date.now() - lastStates < RECONCILE_SECONDS * 1000) return;
    lastStates = Date.now();
    const open = [...pending.values()].filter((p) => !p.done && p.queued);
    const states = await Promise.all(open.map((p) => queue.getJobState(p.jobId)));
    for (const [i, p] of open.entries()) {
      if (states[i] === "failed") {
        const job = await queue.getJob(p.jobId);
        finish(p, givenUp(p.row, jobConfig, o.modelName, job?.failedReason ?? "it failed", p.jobId));
      } else if (states[i] === "unknown" && !p.started) {
        folder.log(`${p.row.instance_id}: its job is no longer in the queue; it did not start`);
        finish(p, null);
      } else if (states[i] === "active") p.started = true;
    }
  };
  let ticking = false;
  const timer = setInterval(() => {
    if (ticking || closing) return;
    ticking = true;
    reconcile()
      .catch(() => undefined)
      .finally(() => {
        ticking = false;
      });
  }, HEARTBEAT_SECONDS * 1000);
  timer.unref();
  await reconcile();

  /** Removes jobs that have not started; a job a worker holds stays. */
  const withdraw = async () => {
    await flushing;
    for (const p of pending.values()) {
      if (p.done || p.started) continue;
      const state = await queue.getJobState(p.jobId);
      if (state !== "waiting" && state !== "prioritized" && state !== "delayed") continue;
      await queue.remove(p.jobId).catch(() => 0);
      if ((await queue.getJobState(p.jobId)) === "unknown") finish(p, null);
    }
  };

  return {
    slots: Number.POSITIVE_INFINITY,
    run(row, hooks) {
      return new Promise<InstanceResult | null>((resolve) => {
        const jobId = instanceJobId(run, row.instance_id);
        const p: Pending = { row, jobId, hooks, resolve, started: false, done: false, queued: false };
        pending.set(row.instance_id, p);
        byJob.set(jobId, p);
        batch.push(p);
        schedule();
      });
    },
    async settle(result, written) {
      const id = result.outcome.instance_id;
      const p = pending.get(id);
      if (written) {
        if (result.outcome.attempt) await redis.set(ackKey(result.outcome.attempt), "1", "EX", MARK_SECONDS);
        if (p) {
          pending.delete(id);
          byJob.delete(p.jobId);
          await removeJob(p.jobId);
        }
      }
      p?.written?.(written);
    },
    async stopStarting() {
      await withdraw();
    },
    interrupt() {
      void redis
        .set(interruptKey(run), "1", "EX", MARK_SECONDS)
        .then(() => redis.publish(CONTROL_CHANNEL, `interrupt ${run}`))
        .catch(() => undefined);
      void withdraw().catch(() => undefined);
    },
    replicaCounts: () => null,
    async close() {
      closing = true;
      clearInterval(timer);
      await flushing.catch(() => undefined);
      // Before it lets go, the run leaves nothing in the queue: jobs whose result is recorded may
      // still be completing, or running as a repeat (told to stop); result jobs a killed
      // coordinator held come back once their lock lapses, and a repeat may still send one (both
      // are taken and dropped by the results worker, which runs until then).
      const left = new Queue(resultsQueueName(run), { connection, prefix: PREFIX });
      left.on("error", () => undefined);
      const unread = async () =>
        Object.values(await left.getJobCounts("waiting", "active", "delayed", "prioritized")).reduce(
          (x, y) => x + y,
          0,
        );
      const until = Date.now() + 6 * RESULT_LOCK_MS;
      for (;;) {
        for (const id of await leftovers()) toRemove.add(id);
        for (const id of [...toRemove]) await removeJob(id);
        if ((toRemove.size === 0 && (await unread()) === 0) || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      if (toRemove.size > 0)
        folder.log(
          `queue: ${toRemove.size} job(s) of run ${run} still run on workers; patchloop queue clean removes them later`,
        );
      await results.close();
      const failed = (await left.getJobCounts("failed")).failed ?? 0;
      if ((await unread()) === 0 && failed === 0)
        await left.obliterate({ force: true }).catch(() => undefined);
      await left.close();
      await redis.multi().del(interruptKey(run)).zrem(RUNS_KEY, run).hdel(RUN_INFO_KEY, run).exec();
      await Promise.all([events.close(), queue.close()]);
      redis.disconnect();
    },
  };
}
