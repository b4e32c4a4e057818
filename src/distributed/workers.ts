import type { Redis } from "ioredis";
import { z } from "zod";
import type { WorkerView } from "../batch/types.js";
import { HEARTBEAT_SECONDS, WORKER_INFO_KEY, WORKERS_KEY } from "./keys.js";
import type { Heartbeat } from "./protocol.js";

/**
 * Who is alive on the queue: each worker and coordinator writes a heartbeat every few seconds and
 * names its connection (CLIENT SETNAME). A process that is killed closes its connection at once,
 * so where Redis lists its connections (CLIENT LIST) a participant is alive while its connection
 * is open and its heartbeat is under QUIET_MS old (a frozen process keeps its connection); where
 * it does not (the command is refused), while its heartbeat is under GONE_MS old.
 */

/** A heartbeat older than this many ms is a participant that is gone (when connections cannot be listed). */
export const GONE_MS = 3 * HEARTBEAT_SECONDS * 1000;
/** A heartbeat older than this many ms is gone even with its connection open (a frozen process). */
export const QUIET_MS = 60_000;

/** The connection name of a worker (its id: `host:pid:start`). */
export const workerConnection = (id: string) => `patchloop-worker:${id.replace(/[^\x21-\x7e]/g, "_")}`;
/** The connection name of a run's coordinator. */
export const coordinatorConnection = (run: string) => `patchloop-run:${run}`;

/** The names of the connections open now; null when Redis does not list them. */
export async function connectedNames(redis: Redis): Promise<Set<string> | null> {
  let text: string;
  try {
    text = String(await redis.client("LIST"));
  } catch (err) {
    // refused (ACL, renamed command): only heartbeats tell
    if ((err as Error).name === "ReplyError") return null;
    throw err;
  }
  return new Set(text.split("\n").flatMap((l) => / name=(\S+)/.exec(l)?.[1] ?? []));
}

/** Whether a participant whose connection is `name` and whose last heartbeat was at `at` is alive. */
export function isAlive(name: string, at: number, now: number, connected: Set<string> | null): boolean {
  return connected ? connected.has(name) && now - at < QUIET_MS : now - at < GONE_MS;
}

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
  paused: z.string().optional(),
  cannot: z
    .array(z.object({ reason: z.string(), jobs: z.number().int().min(0), last: z.string() }))
    .default([]),
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

/** The workers that are alive, by host and pid; what is not a heartbeat is skipped. */
export async function readHeartbeats(redis: Redis, now = Date.now()): Promise<Heartbeat[]> {
  const scored = await redis.zrangebyscore(WORKERS_KEY, now - QUIET_MS, "+inf", "WITHSCORES");
  const at = new Map<string, number>();
  for (let i = 0; i + 1 < scored.length; i += 2) at.set(scored[i], Number(scored[i + 1]));
  if (at.size === 0) return [];
  const connected = await connectedNames(redis);
  const ids = [...at.keys()].filter((id) =>
    isAlive(workerConnection(id), at.get(id) as number, now, connected),
  );
  if (ids.length === 0) return [];
  const texts = await redis.hmget(WORKER_INFO_KEY, ...ids);
  const beats = texts.map(heartbeatOf).filter((b): b is Heartbeat => b !== null && at.has(b.id));
  return beats.sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid);
}

/** The workers as the progress display shows them. */
export function workerViews(beats: Heartbeat[]): WorkerView[] {
  return beats.map(({ id, host, pid, slots, running }) => ({ id, host, pid, slots, running }));
}

/** Writes a worker's heartbeat and forgets workers gone for long. */
export async function beat(redis: Redis, h: Heartbeat, now = Date.now()): Promise<void> {
  const old = await redis.zrangebyscore(WORKERS_KEY, "-inf", now - 20 * QUIET_MS);
  const m = redis.multi().zadd(WORKERS_KEY, now, h.id).hset(WORKER_INFO_KEY, h.id, JSON.stringify(h));
  if (old.length > 0) m.zrem(WORKERS_KEY, ...old).hdel(WORKER_INFO_KEY, ...old);
  await m.exec();
}

/** Removes a worker's heartbeat (it stopped). */
export async function forget(redis: Redis, id: string): Promise<void> {
  await redis.multi().zrem(WORKERS_KEY, id).hdel(WORKER_INFO_KEY, id).exec();
}
