import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { type Job, Queue, UnrecoverableError, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { AgentEvent } from "../agent/agent.js";
import type { Plain } from "../config/merge.js";
import type { Config, ModelConfig } from "../config/schema.js";
import { createModel } from "../models/create-model.js";
import { createReplicaPool, type ReplicaPool } from "../models/replica-pool.js";
import { openInstanceEnvironment } from "../swebench/batch/instance-environment.js";
import { runInstance } from "../swebench/batch/run-instance.js";
import type { ReplicaCounts, TaskOutcome, WorkerInfo } from "../swebench/batch/types.js";
import { cloneDirFor } from "../swebench/batch/workspace.js";
import { makeWorkspaceRoot, sweepStaleRoots } from "../swebench/batch/workspace-root.js";
import { FileWriteError } from "../util/atomic-write.js";
import { VERSION } from "../version.js";
import { checkJob } from "./job-check.js";
import {
  ackKey,
  CONTROL_CHANNEL,
  cancelKey,
  HEARTBEAT_SECONDS,
  INSTANCE_QUEUE,
  interruptKey,
  PREFIX,
  resultsQueueName,
} from "./keys.js";
import { jobConfig } from "./machine-config.js";
import { type ProgressReport, type ResultJob, startLine } from "./protocol.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { reachable, watchRedis } from "./redis-watch.js";
import { signature } from "./signing.js";
import { Spool } from "./spool.js";
import { beat, forget } from "./workers.js";

/** What `patchloop worker` runs with. */
export interface WorkerProcessOptions {
  queue: QueueAddress;
  /** Instances run at once. */
  slots: number;
  /** What this worker's own -c layers and flags set (its machine settings, its secrets). */
  explicit: Plain;
  /** This worker's own resolved config: every machine key of a job's config comes from it (machine-config.ts). */
  own: Config;
  /** The secret of `own.run.queue.secret_env` (jobs must be signed with it, results are); null: none. */
  secret: Buffer | null;
  reposDir?: string;
  spoolRoot: string;
  /** Lines for the person (stderr). */
  say: (line: string) => void;
}

/** A job this worker runs now. */
interface Running {
  run: string;
  instanceId: string;
  abort: AbortController;
  /** Stop it and give the job back to the queue (shutdown), rather than end it as Interrupted. */
  handBack: boolean;
  /** Its instance has its result from another attempt: stop it and send nothing. */
  cancelled: boolean;
}

/** A running worker: `stop` (SIGTERM) and `done` (resolves with the exit code once it stopped). */
export interface WorkerProcess {
  info: WorkerInfo;
  /** First call: take no new job, let running ones finish for `grace_seconds`, then hand them back. Second: hand back now. */
  stop(): void;
  done: Promise<number>;
}

/** The trajectory of a finished instance with the worker that ran it recorded (`info.worker`). */
function withWorker(text: string, info: WorkerInfo): string {
  try {
    const t = JSON.parse(text) as { info?: Record<string, unknown> };
    if (!t.info) return text;
    t.info.worker = info;
    return `${JSON.stringify(t, null, 2)}\n`;
  } catch {
    return text;
  }
}

/**
 * `patchloop worker`: takes instance jobs from the queue (`slots` at once) and runs each as the
 * batch would in one process (runInstance), with the job's config and this machine's settings;
 * reports progress on the job; sends the result to the run's results queue (kept in the spool until
 * the coordinator acknowledges it). BullMQ's lock on each job is renewed while it runs; if this
 * process dies, the lock lapses and another worker's stalled-job check puts the job back. A job
 * started `attempts` times without a result is given up (it fails; the coordinator records it).
 */
export async function startWorker(o: WorkerProcessOptions): Promise<WorkerProcess> {
  const started = Date.now();
  const host = hostname();
  const info: WorkerInfo = { id: `${host}:${process.pid}:${started.toString(36)}`, host, pid: process.pid };
  const connection = redisOptions(o.queue);
  const redis = new Redis(connection);
  redis.on("error", () => undefined);
  watchRedis(redis, o.queue.shown, o.say, "running instances go on; their results are kept until it is back");
  await reachable(redis, o.queue.shown);
  // Interrupts and cancels come at once on the control channel (the marks cover missed ones).
  const control = redis.duplicate();
  control.on("error", () => undefined);
  await control.subscribe(CONTROL_CHANNEL);
  control.on("message", (_channel: string, message: string) => {
    const [verb, what] = message.split(" ");
    for (const [jobId, r] of running) {
      if (verb === "interrupt" && r.run === what && !r.abort.signal.aborted) r.abort.abort();
      if (verb === "cancel" && jobId === what && !r.cancelled) {
        r.cancelled = true;
        r.abort.abort();
      }
    }
  });
  await sweepStaleRoots();
  const workRoot = await makeWorkspaceRoot();
  const spool = new Spool(o.spoolRoot);
  await spool.open();
  const adopted = spool.adopt();
  if (adopted > 0) o.say(`sending again ${adopted} result(s) that a stopped worker on this host had kept`);
  const running = new Map<string, Running>();
  const pools = new Map<string, ReplicaPool | null>();
  const resultQueues = new Map<string, Queue<ResultJob>>();
  let exitCode = 0;
  let stopping = false;
  const q = o.own.run.queue;
  /** Runs told which of their jobs' machine keys this worker ignores (said once per run). */
  const told = new Set<string>();

  const poolFor = (m: ModelConfig): ReplicaPool | null => {
    const key = JSON.stringify([m.base_url, m.replica_cooldown]);
    if (!pools.has(key)) pools.set(key, createReplicaPool(m));
    return pools.get(key) ?? null;
  };
  const resultsOf = (run: string) => {
    let rq = resultQueues.get(run);
    if (!rq) {
      rq = new Queue<ResultJob>(resultsQueueName(run), { connection, prefix: PREFIX });
      rq.on("error", () => undefined);
      resultQueues.set(run, rq);
    }
    return rq;
  };
  /** Sends a result to its run's coordinator; waits (and says so once) while Redis is away. */
  const deliver = async (job: ResultJob) => {
    for (let tries = 0; ; tries++) {
      try {
        await resultsOf(job.run).add("result", job, {
          jobId: job.result.outcome.attempt,
          attempts: 1000,
          backoff: { type: "fixed", delay: 2000 },
          removeOnComplete: true,
          removeOnFail: false,
        });
        return;
      } catch (err) {
        if (tries === 0)
          o.say(
            `the result of ${job.result.outcome.instance_id} waits to be sent: ${(err as Error).message}`,
          );
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
  };

  const report = (job: Job, p: ProgressReport) => {
    job.updateProgress(p).catch(() => undefined);
  };
  const onAgentEvent = (job: Job, e: AgentEvent) => {
    if (e.type === "model_call")
      report(job, {
        t: "call",
        step: e.step,
        prompt: e.usage.promptTokens,
        completion: e.usage.completionTokens,
        cost: e.cost,
        attempts: e.attempts,
      });
    else if (e.type === "model_retry")
      report(job, {
        t: "retry",
        step: e.step,
        attempt: e.attempt,
        max: e.maxAttempts,
        wait: e.waitSeconds,
        reason: e.reason,
      });
  };

  /** The files of an instance's folder (its trajectory with this worker recorded in it). */
  const filesOf = async (dir: string, id: string): Promise<Record<string, string>> => {
    const files: Record<string, string> = {};
    const folder = join(dir, id);
    for (const name of existsSync(folder) ? await readdir(folder) : []) {
      const text = await readFile(join(folder, name), "utf8");
      files[name] = name === `${id}.traj.json` ? withWorker(text, info) : text;
    }
    return files;
  };

  const processor = async (job: Job<unknown>, token?: string): Promise<{ attempt: string }> => {
    // Nothing of a job is used before it passed the check (Redis is not trusted: job-check.ts).
    const checked = checkJob(job.data, String(job.id), o.secret, q.secret_env);
    if (!checked.ok) throw new UnrecoverableError(`refused: ${checked.problem}`);
    const data = checked.job;
    const row = data.row;
    const id = row.instance_id;
    const runs = job.attemptsMade + job.stalledCounter;
    if (runs >= data.attempts)
      throw new UnrecoverableError(
        `given up after ${runs} attempt(s)` +
          (job.stalledCounter > 0
            ? ` (${job.stalledCounter} ended with its worker gone: killed, or cut off from the queue)`
            : "") +
          (job.failedReason ? `; last error: ${job.failedReason}` : ""),
      );
    const attempt = `${job.id}.${randomBytes(6).toString("hex")}`;
    const { config, ignored } = jobConfig(data.config, { own: o.own, explicit: o.explicit });
    if (ignored.length > 0 && !told.has(data.run)) {
      told.add(data.run);
      o.say(
        `run ${data.run}: ignoring the job's ${ignored.join(", ")}: this worker's own settings decide them (docs/distributed.md)`,
      );
    }
    const kind = config.environment.environment_class;
    if (
      (kind === "local" || kind === "bwrap") &&
      o.reposDir &&
      !existsSync(cloneDirFor(o.reposDir, row.repo))
    )
      throw new Error(
        `worker ${info.id} has no clone of ${row.repo} in --repos-dir (${cloneDirFor(o.reposDir, row.repo)})`,
      );
    // Logged before it runs: the coordinator accepts results of logged attempts only.
    await job.log(startLine(attempt, info));
    const entry: Running = {
      run: data.run,
      instanceId: id,
      abort: new AbortController(),
      handBack: false,
      cancelled: false,
    };
    running.set(String(job.id), entry);
    // Marks set before this start (a message on the control channel came too early to be heard).
    const [interrupted, cancelled] = await redis.mget(interruptKey(data.run), cancelKey(String(job.id)));
    if (cancelled) entry.cancelled = true;
    if (interrupted || cancelled) entry.abort.abort();
    report(job, { t: "start", worker: info, attempt });
    o.say(`start ${id} (run ${data.run})`);
    const scratch = await mkdtemp(join(workRoot, "job-"));
    const counts: Record<string, ReplicaCounts> = {};
    const countRequest = (url: string, outcome: "ok" | "failed") => {
      const c = counts[url] ?? { requests: 0, failures: 0 };
      c.requests++;
      if (outcome === "failed") c.failures++;
      counts[url] = c;
    };
    try {
      const pool = poolFor(config.model);
      let outcome: TaskOutcome;
      try {
        outcome = await runInstance(row, {
          config,
          outputDir: scratch,
          modelFor: () =>
            createModel(config.model, {
              warn: (m) => o.say(`${id}: WARNING: ${m}`),
              parallel: o.slots,
              ...(pool ? { replicas: pool, onReplica: countRequest } : {}),
            }),
          openEnvironment: (r) =>
            openInstanceEnvironment(config, r, {
              reposDir: o.reposDir,
              workRoot,
              runId: data.run,
              warn: (m) => o.say(`${id}: WARNING: ${m}`),
            }),
          modelName: data.model_name,
          signal: entry.abort.signal,
          log: (line) => o.say(line),
          onAgentEvent: (e) => onAgentEvent(job, e),
        });
      } catch (err) {
        if (err instanceof FileWriteError) {
          o.say(`cannot write ${err.message}; this worker stops (its job goes to another worker)`);
          exitCode = 1;
          stop();
        }
        throw err;
      }
      if (entry.handBack) {
        await job.moveToWait(token);
        o.say(`handed ${id} back to the queue`);
        throw new WaitingError();
      }
      if (entry.cancelled) {
        o.say(`stopped ${id}: its result came from another attempt`);
        return { attempt };
      }
      const sent: ResultJob["result"] = {
        outcome: { ...outcome, worker: info.id, attempt },
        files: await filesOf(scratch, id),
        worker: info,
        ...(pool ? { replicas: counts } : {}),
      };
      const full: ResultJob = {
        run: data.run,
        result: sent,
        ...(o.secret ? { sig: signature(o.secret, "result", { run: data.run, result: sent }) } : {}),
      };
      await spool.keep(full);
      await deliver(full);
      o.say(`end ${id} ${outcome.exit_status} (${outcome.api_calls} calls, ${outcome.seconds}s)`);
      return { attempt };
    } finally {
      running.delete(String(job.id));
      await rm(scratch, { recursive: true, force: true });
    }
  };

  const worker = new Worker<unknown>(INSTANCE_QUEUE, processor, {
    connection,
    prefix: PREFIX,
    name: info.id,
    concurrency: o.slots,
    lockDuration: q.lock_seconds * 1000,
    stalledInterval: q.stalled_check_seconds * 1000,
    // Starts are counted by the processor (attempts of the job), so that a job handed back at a
    // shutdown does not use one; BullMQ's own limit is set out of the way.
    maxStalledCount: 1_000_000,
  });
  worker.on("error", () => undefined);
  worker.on("failed", (job, err) => {
    if (job && !(err instanceof WaitingError))
      o.say(`job ${job.id}: it failed on this worker: ${err.message}`);
  });

  // Heartbeat, interrupted runs, and results acknowledged by their coordinator, every few seconds.
  let ticking = false;
  const tick = async () => {
    await beat(redis, {
      ...info,
      slots: o.slots,
      running: running.size,
      jobs: [...running.keys()],
      environment: o.own.environment.environment_class,
      version: VERSION,
      started_at: new Date(started).toISOString(),
    });
    const jobIds = [...running.keys()];
    if (jobIds.length > 0) {
      const cancels = await redis.mget(...jobIds.map(cancelKey));
      for (const [i, jobId] of jobIds.entries()) {
        const r = running.get(jobId);
        if (!cancels[i] || !r || r.cancelled) continue;
        r.cancelled = true;
        r.abort.abort();
      }
    }
    const runs = [...new Set([...running.values()].map((r) => r.run))];
    if (runs.length > 0) {
      const marks = await redis.mget(...runs.map(interruptKey));
      for (const [i, run] of runs.entries()) {
        if (!marks[i]) continue;
        for (const r of running.values()) if (r.run === run && !r.abort.signal.aborted) r.abort.abort();
      }
    }
    const kept = await spool.all();
    if (kept.length > 0) {
      const acks = await redis.mget(...kept.map((k) => ackKey(k.result.outcome.attempt)));
      for (const [i, k] of kept.entries()) {
        if (acks[i]) await spool.forget(k.result.outcome.attempt);
        else if ((await resultsOf(k.run).getJobState(k.result.outcome.attempt)) === "unknown")
          await deliver(k);
      }
    }
  };
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    tick()
      .catch(() => undefined)
      .finally(() => {
        ticking = false;
      });
  }, HEARTBEAT_SECONDS * 1000);
  await tick().catch(() => undefined);
  o.say(
    `worker ${info.id}: ${o.slots} slot(s), environment ${o.own.environment.environment_class}, queue ${o.queue.shown}`,
  );

  let closed: Promise<void> | null = null;
  let graceTimer: NodeJS.Timeout | undefined;
  const handBackAll = () => {
    for (const r of running.values()) {
      r.handBack = true;
      r.abort.abort();
    }
  };
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });
  function stop(): void {
    if (stopping) {
      o.say("handing the running instances back to the queue now");
      handBackAll();
      return;
    }
    stopping = true;
    o.say(
      running.size > 0
        ? `stopping: no new instance; ${running.size} running get ${q.grace_seconds}s to finish, then go back to the queue (signal again: at once)`
        : "stopping: no instance is running",
    );
    graceTimer = setTimeout(handBackAll, q.grace_seconds * 1000);
    graceTimer.unref();
    closed = worker.close().then(async () => {
      clearTimeout(graceTimer);
      clearInterval(timer);
      while (ticking) await new Promise((r) => setTimeout(r, 50));
      await tick().catch(() => undefined);
      await forget(redis, info.id).catch(() => undefined);
      await Promise.all([...resultQueues.values()].map((rq) => rq.close()));
      control.disconnect();
      redis.disconnect();
      await rm(workRoot, { recursive: true, force: true });
      finished(exitCode);
    });
  }
  void closed;
  return { info, stop, done };
}
