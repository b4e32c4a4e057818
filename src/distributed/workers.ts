import type { Redis } from "ioredis";
import type { WorkerView } from "../swebench/batch/types.js";
import { HEARTBEAT_SECONDS, WORKER_INFO_KEY, WORKERS_KEY } from "./keys.js";
import type { Heartbeat } from "./protocol.js";

/** A heartbeat older than this many ms is a worker that is gone. */
export const GONE_MS = 3 * HEARTBEAT_SECONDS * 1000;

/** The workers whose heartbeat is recent, by host and pid. */
export async function readHeartbeats(redis: Redis): Promise<Heartbeat[]> {
  const ids = await redis.zrangebyscore(WORKERS_KEY, Date.now() - GONE_MS, "+inf");
  if (ids.length === 0) return [];
  const texts = await redis.hmget(WORKER_INFO_KEY, ...ids);
  const beats: Heartbeat[] = [];
  for (const t of texts) {
    try {
      if (t) beats.push(JSON.parse(t) as Heartbeat);
    } catch {
      // a heartbeat that does not parse is skipped
    }
  }
  return beats.sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid);
}

/** The workers as the progress display shows them. */
export async function listWorkers(redis: Redis): Promise<WorkerView[]> {
  return (await readHeartbeats(redis)).map(({ id, host, pid, slots, running }) => ({
    id,
    host,
    pid,
    slots,
    running,
  }));
}

/** Writes a worker's heartbeat and forgets workers gone for long. */
export async function beat(redis: Redis, h: Heartbeat): Promise<void> {
  const now = Date.now();
  const old = await redis.zrangebyscore(WORKERS_KEY, "-inf", now - 20 * GONE_MS);
  const m = redis.multi().zadd(WORKERS_KEY, now, h.id).hset(WORKER_INFO_KEY, h.id, JSON.stringify(h));
  if (old.length > 0) m.zrem(WORKERS_KEY, ...old).hdel(WORKER_INFO_KEY, ...old);
  await m.exec();
}

/** Removes a worker's heartbeat (it stopped). */
export async function forget(redis: Redis, id: string): Promise<void> {
  await redis.multi().zrem(WORKERS_KEY, id).hdel(WORKER_INFO_KEY, id).exec();
}
