import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { DelayedError, Queue, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { openInstanceEnvironment } from "../batch/instance-environment.js";
import { createLocalDispatcher } from "../batch/local-dispatch.js";
import type { WorkerInfo } from "../batch/types.js";
import type { Plain } from "../config/merge.js";
import type { Config, ModelConfig } from "../config/schema.js";
import { cloneDirFor } from "../instance/workspace.js";
import { makeWorkspaceRoot, sweepStaleRoots } from "../instance/workspace-root.js";
import { createReplicaPool, type ReplicaPool } from "../models/replica-pool.js";
import { VERSION } from "../version.js";
import { type Clock, systemClock, within } from "./clock.js";
import type { WorkerFit } from "./job-fit.js";
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
import type { Heartbeat } from "./protocol.js";
import { CALL_LIMIT_MS, QueueHealth } from "./queue-health.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { ScratchFolder } from "./scratch-folder.js";
import { canonicalJson } from "./signing.js";
import { Spool } from "./spool.js";
import { JobProcessor, type Lease } from "./worker-jobs.js";
import { WorkerState } from "./worker-state.js";
import { beat, forget, workerConnection } from "./workers.js";

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
  /** Why the engine does not run instances now, or null (default: none is checked). */
  engineProblem?: () => Promise<string | null>;
  clock?: Clock;
}

/** A running worker: `stop` (SIGTERM) and `done` (resolves with the exit code once it stopped). */
export interface WorkerProcess {
  info: WorkerInfo;
  /** First call: take no new job, let running ones finish for `grace_seconds`, then hand them back. Second: hand back now. */
  stop(): void;
  done: Promise<number>;
}

/** A run's dispatcher on this worker, with the jobs that hold it. */
interface Held {
  ready: Promise<Lease>;
  users: number;
}

/**
 * `patchloop worker`: takes instance jobs from the queue (`slots` at once) and runs each through
 * the same local dispatcher a batch uses in one process (worker-jobs.ts), with the job's config
 * and this machine's settings. It registers once the queue answers (started while Redis is down,
 * it says so and waits), beats every few seconds, hears interrupts and cancels on the control
 * channel, and resends what its spool keeps until the coordinator acknowledges it. BullMQ's lock
 * on each job is renewed while it runs; if this process dies, the lock lapses and another
 * worker's stalled-job check puts the job back.
 */
class QueueWorker implements WorkerProcess {
  readonly info: WorkerInfo;
  readonly done: Promise<number>;
  private finished: (code: number) => void = () => {};
  private readonly clock: Clock;
  private readonly started = Date.now();
  private readonly redis: Redis;
  private readonly control: Redis;
  private readonly health: QueueHealth;
  private readonly state: WorkerState;
  private readonly spool: Spool;
  private readonly instances: Queue;
  private readonly resultQueues = new Map<string, Queue>();
  private readonly pools = new Map<string, ReplicaPool | null>();
  private readonly held = new Map<string, Held>();
  private leases = 0;
  private readonly jobs: JobProcessor;
  private worker: Worker | null = null;
  private workRoot = "";
  private exitCode = 0;
  private looping = false;
  private cancelTick: () => void = () => {};
  private ticking: Promise<void> = Promise.resolve();
  private cancelPause: (() => void) | null = null;
  private stopRequested: () => void = () => {};
  private readonly stopSignal = new Promise<void>((r) => {
    this.stopRequested = r;
  });

  constructor(private readonly o: WorkerProcessOptions) {
    this.clock = o.clock ?? systemClock;
    const host = hostname();
    this.info = { id: `${host}:${process.pid}:${this.started.toString(36)}`, host, pid: process.pid };
    this.done = new Promise((resolve) => {
      this.finished = resolve;
    });
    const connection = redisOptions(o.queue);
    this.redis = new Redis({ ...connection, connectionName: workerConnection(this.info.id) });
    this.control = this.redis.duplicate();
    this.control.on("error", () => undefined);
    this.health = new QueueHealth({
      clock: this.clock,
      shown: o.queue.shown,
      say: o.say,
      whatWaits:
        "this worker registers and takes jobs once it answers; running instances go on, their results are kept",
      ping: () => this.redis.ping(),
    });
    this.health.watch(this.redis);
    this.state = new WorkerState({
      clock: this.clock,
      graceMs: o.own.run.queue.grace_seconds * 1000,
      say: o.say,
    });
    this.spool = new Spool(o.spoolRoot, o.queue);
    this.instances = this.queueOf(INSTANCE_QUEUE);
    this.jobs = new JobProcessor({
      info: this.info,
      clock: this.clock,
      state: this.state,
      health: this.health,
      redis: this.redis,
      spool: this.spool,
      fit: this.fit(),
      say: o.say,
      instances: this.instances,
      resultsOf: (run) => this.resultsOf(run),
      lease: (run, config, modelName) => this.lease(run, config, modelName),
      release: (lease) => this.release(lease),
      pause: (ms, why, engine) => this.pause(ms, why, engine),
      engineProblem: o.engineProblem ?? (async () => null),
      fail: () => {
        this.exitCode = 1;
        this.stop();
      },
      laterMs: o.own.run.queue.lock_seconds * 1000,
    });
  }

  /** What this worker brings to a job (job-fit.ts). */
  private fit(): WorkerFit {
    const { o } = this;
    return {
      version: VERSION,
      secret: o.secret,
      secretEnv: o.own.run.queue.secret_env,
      own: o.own,
      explicit: o.explicit,
      cloneProblem: (repo, config) => {
        const kind = config.environment.environment_class;
        if ((kind !== "local" && kind !== "bwrap") || !o.reposDir) return null;
        const dir = cloneDirFor(o.reposDir, repo);
        return existsSync(dir)
          ? null
          : `worker ${this.info.id} has no clone of ${repo} in --repos-dir (${dir})`;
      },
    };
  }

  private queueOf(name: string): Queue {
    const q = new Queue(name, { connection: redisOptions(this.o.queue), prefix: PREFIX });
    q.on("error", () => undefined);
    return q;
  }

  private resultsOf(run: string): Queue {
    let q = this.resultQueues.get(run);
    if (!q) {
      q = this.queueOf(resultsQueueName(run));
      this.resultQueues.set(run, q);
    }
    return q;
  }

  /** Starts: the work folders and the spool now; the rest once the queue answers. */
  async start(): Promise<void> {
    await sweepStaleRoots();
    this.workRoot = await makeWorkspaceRoot();
    await this.spool.open();
    const adopted = this.spool.adopt();
    if (adopted > 0)
      this.o.say(`sending again ${adopted} result(s) that a stopped worker on this host had kept`);
    void this.connect();
  }

  /** Once the queue answers: the control channel, the first heartbeat, and the jobs. */
  private async connect(): Promise<void> {
    await Promise.race([this.health.untilAnswering(), this.stopSignal]);
    if (this.state.isStopping) return;
    this.control.on("message", (_channel: string, message: string) => this.state.control(message));
    await this.control.subscribe(CONTROL_CHANNEL).catch(() => undefined);
    this.looping = true;
    this.tickLoop();
    const q = this.o.own.run.queue;
    this.worker = new Worker<unknown>(INSTANCE_QUEUE, (job, token) => this.jobs.process(job, token), {
      connection: redisOptions(this.o.queue),
      prefix: PREFIX,
      name: this.info.id,
      concurrency: this.o.slots,
      lockDuration: q.lock_seconds * 1000,
      stalledInterval: q.stalled_check_seconds * 1000,
      // Deliveries are counted from the job's log (job-plan.ts), so that a job handed back or
      // refused uses none; BullMQ's own limit of stalls is set out of the way.
      maxStalledCount: 1_000_000,
    });
    this.worker.on("error", () => undefined);
    this.worker.on("failed", (job, err) => {
      if (job && !(err instanceof WaitingError) && !(err instanceof DelayedError))
        this.o.say(`job ${job.id}: it failed on this worker: ${err.message}`);
    });
    this.o.say(
      `worker ${this.info.id}: ${this.o.slots} slot(s), environment ${this.o.own.environment.environment_class}, ` +
        `patchloop ${VERSION}, queue ${this.o.queue.shown}`,
    );
  }

  /** The heartbeat, interrupts and cancels, and the spool, every few seconds. */
  private tickLoop(): void {
    this.ticking = this.tick()
      .catch(() => undefined)
      .then(() => {
        if (this.looping) this.cancelTick = this.clock.after(HEARTBEAT_SECONDS * 1000, () => this.tickLoop());
      });
  }

  private heartbeat(): Heartbeat {
    return {
      ...this.info,
      slots: this.o.slots,
      environment: this.o.own.environment.environment_class,
      version: VERSION,
      started_at: new Date(this.started).toISOString(),
      ...this.state.beat(),
    };
  }

  private async tick(): Promise<void> {
    if (!this.health.answering) return;
    const h = this.health;
    await h.call("write the heartbeat", () => beat(this.redis, this.heartbeat(), this.clock.now()));
    const jobIds = [...this.state.running.keys()];
    const runs = [...new Set([...this.state.running.values()].map((r) => r.run))];
    if (jobIds.length > 0) {
      const marks = await h.call("read the marks", () =>
        this.redis.mget(...jobIds.map(cancelKey), ...runs.map(interruptKey)),
      );
      this.state.marks(
        new Set(runs.filter((_, i) => marks[jobIds.length + i])),
        new Set(jobIds.filter((_, i) => marks[i])),
      );
    }
    const kept = await this.spool.all();
    if (kept.length === 0) return;
    const acks = await h.call("read the acknowledgements", () =>
      this.redis.mget(...kept.map((k) => ackKey(k.result.outcome.delivery))),
    );
    for (const [i, k] of kept.entries()) {
      if (acks[i]) await this.spool.forget(k.result.outcome.delivery);
      else if (!(await this.jobs.isInQueue(k))) await this.jobs.deliverOnce(k);
    }
  }

  /** Takes no job for `ms` (BullMQ's fetching paused; running jobs go on); an engine pause lasts until it answers. */
  private async pause(ms: number, why: string, engine: boolean): Promise<void> {
    if (this.state.isStopping || !this.worker) return;
    this.state.paused(why);
    await this.worker.pause(true);
    this.cancelPause?.();
    this.cancelPause = this.clock.after(ms, () => {
      this.cancelPause = null;
      void this.resume(ms, why, engine);
    });
  }

  private async resume(ms: number, why: string, engine: boolean): Promise<void> {
    if (this.state.isStopping || !this.worker) return;
    const problem = engine ? await (this.o.engineProblem ?? (async () => null))() : null;
    if (problem) {
      await this.pause(Math.min(ms * 2, 60_000), why, engine);
      return;
    }
    this.state.resumed();
    await this.worker.resume();
  }

  /** The dispatcher of a run and config on this worker, made on first use, held while its jobs run. */
  private lease(run: string, config: Config, modelName: string): Promise<Lease> {
    const key = createHash("sha256")
      .update(`${run}\n${canonicalJson(config)}`)
      .digest("hex")
      .slice(0, 16);
    let held = this.held.get(key);
    if (!held) {
      // A folder of each lease's own: the last job of a lease that ends removes its folder while
      // the next job of the same run may already have made a new lease.
      const scratchDir = join(this.workRoot, `run-${key}-${++this.leases}`);
      held = {
        users: 0,
        ready: ScratchFolder.create(scratchDir, run, this.o.say).then(async (scratch) => ({
          key,
          scratch,
          dispatcher: await createLocalDispatcher(
            {
              config,
              workers: this.o.slots,
              openEnvironment: (row) =>
                openInstanceEnvironment(config, row, {
                  reposDir: this.o.reposDir,
                  workRoot: this.workRoot,
                  runId: run,
                  warn: (m) => scratch.warn(m),
                }),
              replicas: this.poolFor(config.model),
              runId: run,
              modelName,
            },
            scratch,
          ),
        })),
      };
      this.held.set(key, held);
    }
    held.users++;
    return held.ready;
  }

  private async release(lease: Lease): Promise<void> {
    const held = this.held.get(lease.key);
    if (!held || --held.users > 0) return;
    this.held.delete(lease.key);
    await lease.dispatcher.close();
    await lease.scratch.remove();
  }

  /** One replica pool per model server list on this worker, shared by its runs. */
  private poolFor(m: ModelConfig): ReplicaPool | null {
    const key = JSON.stringify([m.base_url, m.replica_cooldown]);
    if (!this.pools.has(key)) this.pools.set(key, createReplicaPool(m));
    return this.pools.get(key) ?? null;
  }

  stop(): void {
    if (!this.state.stop()) return;
    this.stopRequested();
    void this.shutdown();
  }

  /** Waits for the running jobs (grace period, hand-back), then lets go of everything. */
  private async shutdown(): Promise<void> {
    await this.worker?.close();
    this.state.stopped();
    this.cancelPause?.();
    this.looping = false;
    this.cancelTick();
    await this.ticking;
    if (this.worker) await this.tick().catch(() => undefined);
    if (this.health.answering)
      await this.health
        .call("remove the heartbeat", () => forget(this.redis, this.info.id))
        .catch(() => undefined);
    await Promise.all(
      [...this.resultQueues.values(), this.instances].map((q) =>
        within(this.clock, CALL_LIMIT_MS, q.close(), "close a queue").catch(() => q.disconnect()),
      ),
    );
    this.health.close();
    this.control.disconnect();
    this.redis.disconnect();
    if (this.workRoot) await rm(this.workRoot, { recursive: true, force: true });
    this.finished(this.exitCode);
  }
}

/** Starts `patchloop worker` (see QueueWorker); it registers once the queue answers. */
export async function startWorker(o: WorkerProcessOptions): Promise<WorkerProcess> {
  const w = new QueueWorker(o);
  await w.start();
  return w;
}
