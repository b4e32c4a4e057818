import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { NoAnswer, systemClock, within } from "./clock.js";
import {
  CONTROL_CHANNEL,
  cancelKey,
  INSTANCE_QUEUE,
  interruptKey,
  MARK_SECONDS,
  PREFIX,
  RUN_INFO_KEY,
  RUNS_KEY,
  resultsQueueName,
  runOfJobId,
} from "./keys.js";
import type { Heartbeat, RunHeartbeat } from "./protocol.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { connectedNames, coordinatorConnection, isAlive, QUIET_MS, readHeartbeats } from "./workers.js";

/** One run's jobs in the queue, by state. */
export interface RunCounts {
  run: string;
  waiting: number;
  running: number;
  /** Running on a worker whose heartbeat stopped: BullMQ's stalled check puts them back. */
  stalled: number;
  /** Given up (deliveries spent), not yet recorded by the coordinator. */
  failed: number;
  /** Done on a worker, the coordinator has not removed them yet. */
  finished: number;
  /** Results waiting for the coordinator. */
  results: number;
  /** Its coordinator's heartbeat, when it is alive. */
  coordinator: RunHeartbeat | null;
}

/** What `patchloop queue status` shows. */
export interface QueueStatus {
  runs: RunCounts[];
  workers: Heartbeat[];
  /** With a run: its running instances (job, worker, stalled), and its failed ones with the reason. */
  running?: Array<{ job: string; worker: string; stalled: boolean }>;
  failed?: Array<{ job: string; reason: string }>;
}

/** What `patchloop queue clean` did. */
export interface CleanReport {
  removed: number;
  runs: string[];
  kept: Array<{ run: string; why: string }>;
  /** With `abandon`: results dropped, and running jobs told to stop. */
  dropped: number;
  cancelled: number;
}

const WAITING = ["waiting", "delayed", "prioritized"] as const;

/** Milliseconds an admin command waits for the queue to answer at all. */
const OPEN_MS = 5000;
/** Milliseconds one admin command may take in all. */
export const ADMIN_MS = 20_000;

/** The error of a queue that does not answer: what happened and what to do. */
export function noAnswer(shown: string, why: string): Error {
  return new Error(
    `the queue at ${shown} does not answer (${why}): start redis-server there (docs/distributed.md), or check --queue`,
  );
}

/** A connection to the queue for one admin command. */
export class QueueAdmin {
  private readonly queue: Queue;

  private constructor(
    private readonly address: QueueAddress,
    private readonly redis: Redis,
  ) {
    this.queue = new Queue(INSTANCE_QUEUE, { connection: redisOptions(address), prefix: PREFIX });
    this.queue.on("error", () => undefined);
  }

  /**
   * Connects (one try: no waiting for a server that is not there, nor for one that takes the
   * connection and never answers); throws saying what to do.
   */
  static async open(address: QueueAddress): Promise<QueueAdmin> {
    const redis = new Redis({
      ...redisOptions(address),
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    let failure: (Error & { code?: string }) | undefined;
    redis.on("error", (err) => {
      failure ??= err;
    });
    try {
      await within(
        systemClock,
        OPEN_MS,
        redis.connect().then(() => redis.ping()),
        "connect",
      );
    } catch (err) {
      redis.disconnect();
      if (err instanceof NoAnswer) throw noAnswer(address.shown, `no reply within ${OPEN_MS / 1000} s`);
      const e = failure ?? (err as Error & { code?: string });
      throw noAnswer(address.shown, e.code ?? e.message);
    }
    return new QueueAdmin(address, redis);
  }

  /** Lets go at once (without waiting for replies a frozen server would never send). */
  close(): void {
    void this.queue.disconnect().catch(() => undefined);
    this.redis.disconnect();
  }

  /** The coordinators alive now, by run. */
  private async coordinators(): Promise<Map<string, RunHeartbeat>> {
    const now = Date.now();
    const scored = await this.redis.zrangebyscore(RUNS_KEY, now - QUIET_MS, "+inf", "WITHSCORES");
    const out = new Map<string, RunHeartbeat>();
    if (scored.length === 0) return out;
    const connected = await connectedNames(this.redis);
    const live: string[] = [];
    for (let i = 0; i + 1 < scored.length; i += 2)
      if (isAlive(coordinatorConnection(scored[i]), Number(scored[i + 1]), now, connected))
        live.push(scored[i]);
    if (live.length === 0) return out;
    const texts = await this.redis.hmget(RUN_INFO_KEY, ...live);
    for (const [i, run] of live.entries()) {
      try {
        if (texts[i]) out.set(run, JSON.parse(texts[i] as string) as RunHeartbeat);
      } catch {
        // skipped
      }
    }
    return out;
  }

  private async idsByRun(types: readonly string[]): Promise<Map<string, string[]>> {
    const ids = await this.queue.getRanges([...types] as Parameters<Queue["getRanges"]>[0], 0, -1);
    const by = new Map<string, string[]>();
    for (const id of new Set(ids)) {
      const run = runOfJobId(id);
      by.set(run, [...(by.get(run) ?? []), id]);
    }
    return by;
  }

  private resultsQueue(run: string): Queue {
    const q = new Queue(resultsQueueName(run), { connection: redisOptions(this.address), prefix: PREFIX });
    q.on("error", () => undefined);
    return q;
  }

  private async resultsWaiting(run: string): Promise<number> {
    const q = this.resultsQueue(run);
    try {
      const c = await q.getJobCounts("waiting", "active", "delayed", "failed");
      return Object.values(c).reduce((a, b) => a + b, 0);
    } finally {
      await q.disconnect();
    }
  }

  /** Every run with jobs or a live coordinator (or just `run`), and the live workers. */
  async status(run?: string): Promise<QueueStatus> {
    const [waiting, active, failed, finished, coordinators, workers] = await Promise.all([
      this.idsByRun(WAITING),
      this.idsByRun(["active"]),
      this.idsByRun(["failed"]),
      this.idsByRun(["completed"]),
      this.coordinators(),
      readHeartbeats(this.redis),
    ]);
    const alive = new Set(workers.map((w) => w.id));
    const runs = [
      ...new Set([
        ...waiting.keys(),
        ...active.keys(),
        ...failed.keys(),
        ...finished.keys(),
        ...coordinators.keys(),
      ]),
    ]
      .filter((r) => run === undefined || r === run)
      .sort();
    if (run !== undefined && !runs.includes(run)) runs.push(run);
    const status: QueueStatus = { runs: [], workers };
    const runningList: NonNullable<QueueStatus["running"]> = [];
    for (const r of runs) {
      let stalled = 0;
      for (const id of active.get(r) ?? []) {
        const job = await this.queue.getJob(id);
        const worker = job?.processedBy ?? "?";
        const gone = !alive.has(worker);
        if (gone) stalled++;
        if (run !== undefined) runningList.push({ job: id, worker, stalled: gone });
      }
      status.runs.push({
        run: r,
        waiting: waiting.get(r)?.length ?? 0,
        running: (active.get(r)?.length ?? 0) - stalled,
        stalled,
        failed: failed.get(r)?.length ?? 0,
        finished: finished.get(r)?.length ?? 0,
        results: await this.resultsWaiting(r),
        coordinator: coordinators.get(r) ?? null,
      });
    }
    if (run !== undefined) {
      status.running = runningList;
      status.failed = [];
      for (const id of failed.get(run) ?? []) {
        const job = await this.queue.getJob(id);
        status.failed.push({ job: id, reason: job?.failedReason ?? "?" });
      }
    }
    return status;
  }

  /** Removes the jobs that wait (of `run`, or of every run); running ones finish. Returns how many. */
  async drain(run?: string): Promise<number> {
    const waiting = await this.idsByRun(WAITING);
    let n = 0;
    for (const [r, ids] of waiting) {
      if (run !== undefined && r !== run) continue;
      for (const id of ids) {
        await this.queue.remove(id).catch(() => 0);
        if ((await this.queue.getJobState(id)) === "unknown") n++;
      }
    }
    return n;
  }

  /**
   * Removes what runs without a live coordinator left: their finished and failed jobs, their empty
   * results queues and interrupt marks. A run whose results still wait for its coordinator is
   * kept (run that coordinator's command again to collect them), unless `abandon` names it: then
   * its waiting jobs and results go too, and its running jobs are told to stop.
   */
  async clean(run?: string, abandon = false): Promise<CleanReport> {
    const status = await this.status(run);
    const out: CleanReport = { removed: 0, runs: [], kept: [], dropped: 0, cancelled: 0 };
    const ended = await this.idsByRun(
      abandon ? ["completed", "failed", ...WAITING] : ["completed", "failed"],
    );
    // Runs a killed coordinator left with no job: only their marks are left to remove.
    const known = new Set(status.runs.map((r) => r.run));
    for (const r of await this.redis.zrange(RUNS_KEY, 0, -1)) {
      if (known.has(r) || (run !== undefined && r !== run)) continue;
      const results = await this.resultsWaiting(r);
      status.runs.push({
        run: r,
        waiting: 0,
        running: 0,
        stalled: 0,
        failed: 0,
        finished: 0,
        results,
        coordinator: null,
      });
    }
    for (const r of status.runs) {
      const why = this.keeps(r, abandon);
      if (why) {
        out.kept.push({ run: r.run, why });
        continue;
      }
      for (const id of ended.get(r.run) ?? []) {
        await this.queue.remove(id).catch(() => 0);
        out.removed++;
      }
      if (abandon) out.cancelled += await this.cancelRunning(r.run);
      out.dropped += abandon ? r.results : 0;
      const q = this.resultsQueue(r.run);
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.disconnect();
      await this.redis
        .multi()
        .del(interruptKey(r.run))
        .zrem(RUNS_KEY, r.run)
        .hdel(RUN_INFO_KEY, r.run)
        .exec();
      out.runs.push(r.run);
    }
    return out;
  }

  /** Why `clean` keeps a run, or null. */
  private keeps(r: RunCounts, abandon: boolean): string | null {
    if (r.coordinator) return `its coordinator (${r.coordinator.host}:${r.coordinator.pid}) is running`;
    if (r.results > 0 && !abandon)
      return (
        `${r.results} result(s) wait for its coordinator: run the same patchloop swebench command again to collect ` +
        `them, or drop them with patchloop queue clean --run ${r.run} --abandon`
      );
    return null;
  }

  /** Tells the workers running a run's jobs to stop them and send nothing (cancel marks). */
  private async cancelRunning(run: string): Promise<number> {
    const active = (await this.idsByRun(["active"])).get(run) ?? [];
    for (const id of active) {
      await this.redis.set(cancelKey(id), "1", "EX", MARK_SECONDS);
      await this.redis.publish(CONTROL_CHANNEL, `cancel ${id}`);
    }
    return active.length;
  }
}
