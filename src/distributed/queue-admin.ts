import { Queue } from "bullmq";
import { Redis } from "ioredis";
import {
  INSTANCE_QUEUE,
  interruptKey,
  PREFIX,
  RUN_INFO_KEY,
  RUNS_KEY,
  resultsQueueName,
  runOfJobId,
} from "./keys.js";
import type { Heartbeat, RunHeartbeat } from "./protocol.js";
import { type QueueAddress, redisOptions } from "./queue-url.js";
import { reachable } from "./redis-watch.js";
import { GONE_MS, readHeartbeats } from "./workers.js";

/** One run's jobs in the queue, by state. */
export interface RunCounts {
  run: string;
  waiting: number;
  running: number;
  /** Running on a worker whose heartbeat stopped: BullMQ's stalled check puts them back. */
  stalled: number;
  /** Given up (attempts spent), not yet recorded by the coordinator. */
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

const WAITING = ["waiting", "delayed", "prioritized"] as const;

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

  /** Connects (one try: no waiting for a server that is not there); throws saying what to do. */
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
      await redis.connect();
      await reachable(redis, address.shown, 5000);
    } catch (err) {
      redis.disconnect();
      const e = failure ?? (err as Error & { code?: string });
      if (e.message.startsWith("the queue at")) throw e;
      throw new Error(
        `the queue at ${address.shown} does not answer (${e.code ?? e.message}): start redis-server there ` +
          "(docs/distributed.md), or check --queue",
      );
    }
    return new QueueAdmin(address, redis);
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }

  private async coordinators(): Promise<Map<string, RunHeartbeat>> {
    const live = await this.redis.zrangebyscore(RUNS_KEY, Date.now() - GONE_MS, "+inf");
    const out = new Map<string, RunHeartbeat>();
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

  private async resultsWaiting(run: string): Promise<number> {
    const q = new Queue(resultsQueueName(run), { connection: redisOptions(this.address), prefix: PREFIX });
    q.on("error", () => undefined);
    try {
      const c = await q.getJobCounts("waiting", "active", "delayed", "failed");
      return Object.values(c).reduce((a, b) => a + b, 0);
    } finally {
      await q.close();
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
   * results queues and interrupt marks, and heartbeats of workers long gone. A run whose results
   * still wait for its coordinator is kept (run that coordinator again to collect them).
   */
  async clean(
    run?: string,
  ): Promise<{ removed: number; runs: string[]; kept: Array<{ run: string; why: string }> }> {
    const status = await this.status(run);
    const out = { removed: 0, runs: [] as string[], kept: [] as Array<{ run: string; why: string }> };
    const ended = await this.idsByRun(["completed", "failed"]);
    // Runs a killed coordinator left with no job: only their marks are left to remove.
    const known = new Set(status.runs.map((r) => r.run));
    for (const r of await this.redis.zrange(RUNS_KEY, 0, -1)) {
      if (known.has(r) || (run !== undefined && r !== run)) continue;
      status.runs.push({
        run: r,
        waiting: 0,
        running: 0,
        stalled: 0,
        failed: 0,
        finished: 0,
        results: await this.resultsWaiting(r),
        coordinator: null,
      });
    }
    for (const r of status.runs) {
      if (r.coordinator) {
        out.kept.push({
          run: r.run,
          why: `its coordinator (${r.coordinator.host}:${r.coordinator.pid}) is running`,
        });
        continue;
      }
      if (r.results > 0) {
        out.kept.push({
          run: r.run,
          why: `${r.results} result(s) wait for its coordinator: run the same patchloop swebench command again to collect them`,
        });
        continue;
      }
      for (const id of ended.get(r.run) ?? []) {
        await this.queue.remove(id).catch(() => 0);
        out.removed++;
      }
      const q = new Queue(resultsQueueName(r.run), {
        connection: redisOptions(this.address),
        prefix: PREFIX,
      });
      q.on("error", () => undefined);
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
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
}
