import { hostname } from "node:os";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { RunFolder } from "../batch/run-folder.js";
import {
  type Dispatcher,
  type DispatchHooks,
  type InstanceResult,
  unitKey,
  type WorkerView,
  type WorkUnit,
} from "../batch/types.js";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { VERSION } from "../version.js";
import { shown } from "./check-text.js";
import { type Clock, NoAnswer, sleep, systemClock } from "./clock.js";
import { CoordinatorState, type Entry, WAITING_STATES } from "./coordinator-state.js";
import {
  ackKey,
  CONTROL_CHANNEL,
  cancelKey,
  HEARTBEAT_SECONDS,
  INSTANCE_QUEUE,
  interruptKey,
  MARK_SECONDS,
  PREFIX,
  RUN_INFO_KEY,
  RUNS_KEY,
  resultsQueueName,
} from "./keys.js";
import { type InstanceJob, startedDeliveries } from "./protocol.js";
import { QueueHealth } from "./queue-health.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { readResult } from "./result-check.js";
import { queueSecret, signature } from "./signing.js";
import { coordinatorConnection, readHeartbeats, workerViews } from "./workers.js";

/** What the coordinator's dispatcher needs. */
export interface CoordinatorOptions {
  queue: QueueAddress;
  config: Config;
  modelName: string;
  /** Messages for the person (Redis away and back, enqueue facts). */
  say: (line: string) => void;
  /** The workers seen, whenever that list changes. */
  onWorkers?: (workers: WorkerView[]) => void;
  clock?: Clock;
}

/** Tries to mark a result as recorded (acknowledge) before giving up on the mark. */
const ACK_TRIES = 5;
/** Longest wait between two tries of the mark, when the queue does not answer meanwhile. */
const ACK_WAIT_MS = 3000;

/** Milliseconds a coordinator's lock on a result job lasts unrenewed. */
const RESULT_LOCK_MS = 10_000;

/**
 * Seconds between the coordinator's looks at what its jobs became, for events it missed (while
 * Redis was away or the events stream was trimmed): failed, or removed by hand.
 */
const RECONCILE_SECONDS = 30;

/** Milliseconds the coordinator waits at its start for the queue to answer. */
const FIRST_ANSWER_MS = 10_000;

/** The run id: the one run.json recorded (the same command resumes the same jobs), else the folder's. */
function runIdOf(folder: RunFolder): string {
  const earlier = folder.earlierInfo("queue") as { run?: unknown } | undefined;
  return typeof earlier?.run === "string" ? earlier.run : folder.runId.replace(/[^A-Za-z0-9_-]/g, "-");
}

/**
 * Runs a folder's instances on `patchloop worker` processes through BullMQ: every instance is a
 * job of the shared instance queue (id `<run>.<instance>`, so that a restarted coordinator never
 * enqueues one twice), carrying the row and the config with its secrets masked; workers report
 * progress on the job (QueueEvents) and send each result or refusal to the run's own results
 * queue, which this process consumes with a BullMQ worker: a result is acknowledged (an ack mark
 * set for the worker, the instance job removed) only once the folder holds it. What the news
 * means is decided by CoordinatorState; this class reads the queue and acts.
 */
class QueueCoordinator implements Dispatcher {
  readonly slots = Number.POSITIVE_INFINITY;
  private readonly clock: Clock;
  private readonly secret: Buffer | null;
  private readonly connection: ReturnType<typeof redisOptions>;
  private readonly state: CoordinatorState;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly results: Worker<unknown>;
  private readonly jobConfig: unknown;
  private batch: Entry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private firstPass: Promise<void> | null = null;
  private closing = false;
  private cancelTick: () => void = () => {};
  private ticking: Promise<void> = Promise.resolve();
  private lastWorkers = "";
  private lastStates = 0;

  constructor(
    private readonly o: CoordinatorOptions,
    private readonly folder: RunFolder,
    private readonly redis: Redis,
    private readonly health: QueueHealth,
    private readonly runId: string,
  ) {
    this.clock = o.clock ?? systemClock;
    this.secret = queueSecret(o.config.run.queue.secret_env);
    this.connection = redisOptions(o.queue);
    this.jobConfig = redactSecrets(o.config);
    this.state = new CoordinatorState({
      run: runId,
      clock: this.clock,
      jobConfig: this.jobConfig,
      modelName: o.modelName,
      log: (line) => folder.log(line),
      say: o.say,
    });
    this.queue = new Queue(INSTANCE_QUEUE, { connection: this.connection, prefix: PREFIX });
    this.events = new QueueEvents(INSTANCE_QUEUE, { connection: this.connection, prefix: PREFIX });
    this.queue.on("error", () => undefined);
    this.events.on("error", () => undefined);
    this.events.on("progress", ({ jobId, data }) => this.state.progress(jobId, data));
    this.events.on("failed", ({ jobId, failedReason }) => this.state.failed(jobId, failedReason));
    this.events.on("removed", ({ jobId }) => this.state.removed(jobId));
    // Started after the first enqueue pass, which must see the jobs as an earlier coordinator left them.
    this.results = new Worker<unknown>(resultsQueueName(runId), (job) => this.onResult(job), {
      connection: this.connection,
      prefix: PREFIX,
      concurrency: 16,
      autorun: false,
      // A coordinator killed while recording leaves its result jobs locked: the next one takes them
      // back after this long (and records them once: the folder knows the delivery).
      lockDuration: RESULT_LOCK_MS,
      stalledInterval: RESULT_LOCK_MS / 2,
    });
    this.results.on("error", () => undefined);
  }

  /** One call to the queue, with the time limit (queue-health.ts). */
  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return this.health.call(what, fn);
  }

  async start(): Promise<void> {
    await this.call("clear the interrupt mark", () => this.redis.del(interruptKey(this.runId)));
    this.folder.log(`queue ${this.o.queue.shown}: run ${this.runId}`);
    this.o.say(
      `queue ${this.o.queue.shown}: run ${this.runId} (patchloop queue status --queue ${this.o.queue.shown} --run ${this.runId})`,
    );
    await this.tick();
    this.tickLoop();
  }

  run(unit: WorkUnit, hooks: DispatchHooks): Promise<InstanceResult | null> {
    const { entry, result } = this.state.add(unit, hooks);
    this.batch.push(entry);
    if (this.batch.length === 1) setImmediate(() => (this.flushing = this.flushing.then(() => this.flush())));
    return result;
  }

  /** A job as it goes into the queue: signed when the run has a secret (signing.ts). */
  private jobOf(e: { row: SwebenchInstance; attempt?: number }): InstanceJob {
    const job: InstanceJob = {
      run: this.runId,
      row: e.row,
      ...(e.attempt !== undefined ? { attempt: e.attempt } : {}),
      config: this.jobConfig,
      model_name: this.o.modelName,
      deliveries: this.o.config.run.queue.deliveries,
      version: VERSION,
    };
    return this.secret ? { ...job, sig: signature(this.secret, "job", job) } : job;
  }

  /** Enqueues what was handed over since the last pass (addBulk), keeping what an earlier coordinator left. */
  private async flush(): Promise<void> {
    const now = this.batch;
    this.batch = [];
    if (now.length === 0) return;
    try {
      const found = await this.call("look at the jobs", () =>
        Promise.all(
          now.map(async (e) => {
            const state = await this.queue.getJobState(e.jobId);
            if (state !== "completed") return { state };
            const job = await this.queue.getJob(e.jobId);
            const delivery = (job?.returnvalue as { delivery?: string | null } | undefined)?.delivery ?? null;
            return {
              state,
              delivery,
              acked: delivery ? (await this.redis.exists(ackKey(delivery))) > 0 : false,
            };
          }),
        ),
      );
      const plan = this.state.enqueuePlan(now, found);
      if (plan.kept > 0)
        this.folder.log(
          `queue: ${plan.kept} instance(s) of run ${this.runId} were in the queue already (kept)`,
        );
      for (const e of plan.replace) await this.call("replace a job", () => this.queue.remove(e.jobId));
      const add = [...plan.add, ...plan.replace];
      for (let i = 0; i < add.length; i += 500) {
        const part = add.slice(i, i + 500);
        await this.call("enqueue", () =>
          this.queue.addBulk(
            part.map((e) => ({
              name: "instance",
              data: this.jobOf(e),
              opts: {
                jobId: e.jobId,
                attempts: this.o.config.run.queue.deliveries,
                backoff: { type: "fixed", delay: 1000 },
                removeOnComplete: false,
                removeOnFail: false,
              },
            })),
          ),
        );
        for (const e of part) e.queued = true;
      }
    } catch (err) {
      if (!(err instanceof NoAnswer)) throw err;
      // tried again once the queue answers
      this.batch.push(...now);
      await this.health.untilAnswering();
      return this.flush();
    }
    await this.startResults();
  }

  /** After the first enqueue pass: this run's leftover jobs go, and results are taken. */
  private startResults(): Promise<void> {
    this.firstPass ??= (async () => {
      for (const id of await this.leftovers()) this.state.toRemove.add(id);
      void this.results.run().catch(() => undefined);
    })();
    return this.firstPass;
  }

  /** This run's jobs in the queue whose instance it does not wait for (left by a killed coordinator). */
  private async leftovers(): Promise<string[]> {
    // 0..-1: every job of each state (BullMQ's getRanges gives the first two of each by default).
    const ids = await this.call("list the jobs", () =>
      this.queue.getRanges(["waiting", "delayed", "prioritized", "active", "completed", "failed"], 0, -1),
    ).catch(() => [] as string[]);
    const waited = new Set(this.state.open().map((e) => e.jobId));
    return [...new Set(ids)].filter((id) => id.startsWith(`${this.runId}.`) && !waited.has(id));
  }

  /**
   * A message from the results queue (anyone who can write to Redis may have sent it): checked
   * (shape, run, signature), then a refusal is noted and a result taken or dropped
   * (CoordinatorState.result: the folder's duplicate rule, the deliveries logged on the job).
   */
  private async onResult(job: Job<unknown>): Promise<void> {
    const secretEnv = this.o.config.run.queue.secret_env;
    const checked = readResult(job.data, this.runId, this.secret, secretEnv);
    if (!checked.ok) {
      this.folder.log(`queue: a result was dropped (result job ${shown(job.id)}): ${checked.problem}`);
      return;
    }
    const m = checked.message;
    if (m.kind === "refused") {
      this.state.refused(m.refusal);
      return;
    }
    const { outcome } = m.report;
    const e = this.state.pending.get(unitKey(outcome.instance_id, outcome.attempt_number));
    const logs =
      e && !e.done
        ? (await this.call("read the job's log", () => this.queue.getJobLogs(e.jobId, 0, -1))).logs
        : [];
    const decision = this.state.result(m.report, startedDeliveries(logs), (id, d) =>
      this.folder.dropReason(id, d),
    );
    if ("drop" in decision) {
      this.folder.log(
        `${outcome.instance_id}: a result of delivery ${outcome.delivery} was dropped: ${decision.drop}`,
      );
      if (decision.ack) await this.acknowledge(outcome.delivery);
      return;
    }
    // settle says whether the folder holds it (set before the scheduler, woken by `result`, gets there)
    const written = new Promise<boolean>((resolve) => {
      decision.take.written = resolve;
    });
    if (!(await written)) throw new Error(`the run folder could not record ${outcome.instance_id}`);
  }

  private tickLoop(): void {
    this.cancelTick = this.clock.after(HEARTBEAT_SECONDS * 1000, () => {
      this.ticking = this.tick().finally(() => {
        if (!this.closing) this.tickLoop();
      });
    });
  }

  /** Every few seconds: the heartbeat, the workers, jobs to remove or withdraw, refusals, missed events. */
  private async tick(): Promise<void> {
    if (!this.health.answering) return;
    try {
      const beat = this.state.heartbeat({ host: hostname(), pid: process.pid, dir: this.folder.dir });
      await this.call("write the heartbeat", () =>
        this.redis
          .multi()
          .zadd(RUNS_KEY, this.clock.now(), this.runId)
          .hset(RUN_INFO_KEY, this.runId, JSON.stringify(beat))
          .exec(),
      );
      const beats = await this.call("read the workers", () => readHeartbeats(this.redis, this.clock.now()));
      const views = workerViews(beats);
      const text = JSON.stringify(views);
      if (text !== this.lastWorkers) {
        this.lastWorkers = text;
        this.o.onWorkers?.(views);
      }
      for (const id of [...this.state.toRemove]) await this.removeJob(id);
      await this.withdraw();
      const refused = this.state.refusedOpen();
      const states = await this.statesOf(refused);
      const waiting = refused.filter((_, i) => WAITING_STATES.includes(states[i]));
      this.state.unrunnable(
        waiting,
        beats.map((b) => b.id),
      );
      await this.reconcile();
    } catch (err) {
      if (!(err instanceof NoAnswer)) this.folder.log(`queue: ${(err as Error).message}`);
    }
  }

  private statesOf(entries: Entry[]): Promise<string[]> {
    return this.call("look at the jobs", () =>
      Promise.all(entries.map((e) => this.queue.getJobState(e.jobId))),
    );
  }

  /** Every RECONCILE_SECONDS: what became of the jobs, for events missed. */
  private async reconcile(): Promise<void> {
    if (this.clock.now() - this.lastStates < RECONCILE_SECONDS * 1000) return;
    this.lastStates = this.clock.now();
    const open = this.state.open().filter((e) => e.queued);
    const states = await this.statesOf(open);
    for (const [i, e] of open.entries()) {
      const reason =
        states[i] === "failed"
          ? (await this.call("read a job", () => this.queue.getJob(e.jobId)))?.failedReason
          : undefined;
      this.state.observe(e, states[i], reason);
    }
  }

  /** Removes the waiting jobs of instances that have not started (stopping); a job a worker holds stays. */
  private async withdraw(): Promise<void> {
    const some = this.state.withdrawable();
    if (some.length === 0) return;
    await this.flushing;
    const states = await this.statesOf(some);
    await Promise.all(
      some.map(async (e, i) => {
        if (!WAITING_STATES.includes(states[i])) return;
        await this.call("withdraw a job", () => this.queue.remove(e.jobId)).catch(() => 0);
        if ((await this.call("look at a job", () => this.queue.getJobState(e.jobId))) === "unknown")
          this.state.withdrawn(e);
      }),
    );
  }

  /**
   * Removes an instance job whose result the folder holds. One still running (a repeat of a
   * delivery whose worker was taken for gone) is told to stop, and removed once it ends.
   */
  private async removeJob(jobId: string): Promise<void> {
    try {
      const what = this.state.removal(await this.call("look at a job", () => this.queue.getJobState(jobId)));
      if (what === "cancel") {
        await this.call("cancel a job", () => this.redis.set(cancelKey(jobId), "1", "EX", MARK_SECONDS));
        await this.call("cancel a job", () => this.redis.publish(CONTROL_CHANNEL, `cancel ${jobId}`));
      } else if (what === "remove") await this.call("remove a job", () => this.queue.remove(jobId));
      if ((await this.call("look at a job", () => this.queue.getJobState(jobId))) === "unknown") {
        this.state.toRemove.delete(jobId);
        await this.call("clear a mark", () => this.redis.del(cancelKey(jobId)));
        return;
      }
    } catch {
      // locked (its worker is completing it) or the queue does not answer: tried again
    }
    this.state.toRemove.add(jobId);
  }

  /**
   * Marks a delivery's result as recorded, so its worker does not send it again. Right after
   * an outage the queue may answer before this side has noticed (calls are refused while it is taken
   * to be silent): the mark waits for an answer and is tried again, ACK_TRIES times in all. Without
   * it, the worker's own retry of a send that timed out arrives as a second copy (dropped, logged).
   */
  private async acknowledge(delivery: string): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.call("acknowledge", () => this.redis.set(ackKey(delivery), "1", "EX", MARK_SECONDS));
        return;
      } catch (err) {
        if (tries >= ACK_TRIES || this.closing) throw err;
        await Promise.race([this.health.untilAnswering(), sleep(this.clock, ACK_WAIT_MS)]);
      }
    }
  }

  async settle(result: InstanceResult, written: boolean): Promise<void> {
    const { ack, remove, release } = this.state.settle(result, written);
    if (ack) await this.acknowledge(ack).catch(() => undefined);
    release();
    if (remove) await this.removeJob(remove);
  }

  /**
   * The attempt policy stopped this unit's instance: its job is taken off the queue if no worker
   * has started it (its `run` resolves null). True when it was taken off.
   */
  async takeBack(unit: WorkUnit): Promise<boolean> {
    const e = this.state.pending.get(unitKey(unit.row.instance_id, unit.attempt));
    if (!e || e.done || e.started) return false;
    await this.flushing;
    try {
      if (!WAITING_STATES.includes(await this.call("look at a job", () => this.queue.getJobState(e.jobId))))
        return false;
      await this.call("withdraw a job", () => this.queue.remove(e.jobId));
      if ((await this.call("look at a job", () => this.queue.getJobState(e.jobId))) !== "unknown")
        return false;
    } catch {
      return false; // a worker took it meanwhile (locked), or the queue does not answer: it runs
    }
    this.state.withdrawn(e);
    return true;
  }

  async stopStarting(): Promise<void> {
    this.state.stopping = true;
    await this.withdraw().catch(() => undefined);
  }

  /** Ctrl-C: the mark first (a worker checks it before it starts a job), then the message, then the withdrawal. */
  interrupt(): void {
    this.state.stopping = true;
    void this.call("interrupt", async () => {
      await this.redis.set(interruptKey(this.runId), "1", "EX", MARK_SECONDS);
      await this.redis.publish(CONTROL_CHANNEL, `interrupt ${this.runId}`);
    })
      .catch(() => undefined)
      .then(() => this.withdraw())
      .catch(() => undefined);
  }

  /**
   * Before it lets go, the run leaves nothing in the queue: jobs whose result is recorded may
   * still be completing, or running as a repeat (told to stop); result jobs a killed coordinator
   * held come back once their lock lapses, and a repeat may still send one (both are taken and
   * dropped by the results worker, which runs until then).
   */
  async close(): Promise<void> {
    this.closing = true;
    this.cancelTick();
    await this.ticking.catch(() => undefined);
    await this.flushing.catch(() => undefined);
    await this.startResults().catch(() => undefined);
    const left = new Queue(resultsQueueName(this.runId), { connection: this.connection, prefix: PREFIX });
    left.on("error", () => undefined);
    const unread = async () =>
      Object.values(
        await this.call("count the results", () =>
          left.getJobCounts("waiting", "active", "delayed", "prioritized"),
        ),
      ).reduce((x, y) => x + y, 0);
    const until = this.clock.now() + 6 * RESULT_LOCK_MS;
    for (;;) {
      for (const id of await this.leftovers()) this.state.toRemove.add(id);
      for (const id of [...this.state.toRemove]) await this.removeJob(id);
      const read = this.state.toRemove.size === 0 && (await unread().catch(() => 1)) === 0;
      if (read || this.clock.now() > until) break;
      await sleep(this.clock, 200);
    }
    if (this.state.toRemove.size > 0)
      this.folder.log(
        `queue: ${this.state.toRemove.size} job(s) of run ${this.runId} still run on workers; patchloop queue clean removes them later`,
      );
    await this.results.close();
    await this.letGo(left, unread);
  }

  /** The run's results queue goes when it is empty, then its marks, then the connections. */
  private async letGo(left: Queue, unread: () => Promise<number>): Promise<void> {
    try {
      const failed = (await this.call("count the results", () => left.getJobCounts("failed"))).failed ?? 0;
      if ((await unread()) === 0 && failed === 0)
        await this.call("remove the results queue", () => left.obliterate({ force: true }));
      await this.call("remove the run's marks", () =>
        this.redis
          .multi()
          .del(interruptKey(this.runId))
          .zrem(RUNS_KEY, this.runId)
          .hdel(RUN_INFO_KEY, this.runId)
          .exec(),
      );
    } catch {
      // the queue does not answer: patchloop queue clean removes what is left
    }
    await Promise.all(
      [left.close(), this.events.close(), this.queue.close()].map((p) => p.catch(() => undefined)),
    );
    this.health.close();
    this.redis.disconnect();
  }
}

/**
 * The dispatcher of a run through the queue. The run id is recorded in run.json before the
 * first job is sent, so that the same command resumes the same jobs even when this process is
 * killed before any result; the queue must answer within FIRST_ANSWER_MS.
 */
export async function createCoordinatorDispatcher(
  o: CoordinatorOptions,
  folder: RunFolder,
): Promise<Dispatcher> {
  const clock = o.clock ?? systemClock;
  const run = runIdOf(folder);
  const redis = new Redis({ ...redisOptions(o.queue), connectionName: coordinatorConnection(run) });
  const health = new QueueHealth({
    clock,
    shown: o.queue.shown,
    say: o.say,
    whatWaits: "finished results stay in the queue and on the workers",
    ping: () => redis.ping(),
  });
  health.watch(redis);
  let cancel: () => void = () => {};
  const timeout = new Promise<never>((_, reject) => {
    cancel = clock.after(FIRST_ANSWER_MS, () =>
      reject(
        new Error(
          `the queue at ${o.queue.shown} does not answer within ${FIRST_ANSWER_MS / 1000} s: start redis-server there ` +
            "(docs/distributed.md), or check --queue",
        ),
      ),
    );
  });
  try {
    await Promise.race([health.untilAnswering(), timeout]);
  } catch (err) {
    health.close();
    redis.disconnect();
    throw err;
  } finally {
    cancel();
  }
  await folder.recordInfo("queue", { url: o.queue.shown, run });
  const c = new QueueCoordinator(o, folder, redis, health, run);
  await c.start();
  return c;
}
