import type { Redis } from "ioredis";
import { z } from "zod";
import type { WorkerView } from "../swebench/batch/types.js";
import { HEARTBEAT_SECONDS, WORKER_INFO_KEY, WORKERS_KEY } from "./keys.js";
import type { Heartbeat } from "./protocol.js";

/** A heartbeat older than this many ms is a worker that is gone. */
export const GONE_MS = 3 * HEARTBEAT_SECONDS * 1000;

/** A heartbeat as a worker writes it (keys a newer patchloop adds are dropped). */
const HeartbeatSchema = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  slots: z.number().int().min(0),
  running: z.number().int().min(0),
  jobs: z.array(z.string()),
  environment: z.string(),
  version: z.string(),
  started_at: z.string(),
});

/** The heartbeat in `text`, or null when it is not one (anyone who can write to Redis can write there). */
function heartbeatOf(text: string | null): Heartbeat | null {
  if (!text) return null;
  try {
    const parsed = HeartbeatSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The workers whose heartbeat is recent, by host and pid; what is not a heartbeat is skipped. */
export async function readHeartbeats(redis: Redis): Promise<Heartbeat[]> {
  const ids = await redis.zrangebyscore(WORKERS_KEY, Date.now() - GONE_MS, "+inf");
  if (ids.length === 0) return [];
  const texts = await redis.hmget(WORKER_INFO_KEY, ...ids);
  const beats = texts.map(heartbeatOf).filter((b): b is Heartbeat => b !== null);
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
