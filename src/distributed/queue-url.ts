import { ConfigError } from "../config/errors.js";

/** Where the queue is: a Redis server (or Valkey, Dragonfly: the same protocol). */
export interface QueueAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL with any password masked, for messages and run.json. */
  shown: string;
}

/**
 * Reads `redis://HOST:PORT[/DB]` (also `rediss://` for TLS and `redis://[USER]:PASSWORD@HOST...`).
 * Throws ConfigError saying what was wrong and what is expected.
 */
export function parseQueueUrl(text: string): QueueAddress {
  const expected = "expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--queue ${JSON.stringify(text)} is not a URL; ${expected}`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new ConfigError(`--queue ${url.protocol}// is not a Redis URL; ${expected}`);
  if (!url.hostname) throw new ConfigError(`--queue ${JSON.stringify(text)} names no host; ${expected}`);
  const path = url.pathname.replace(/^\/+/, "");
  const db = path === "" ? 0 : Number(path);
  if (!Number.isInteger(db) || db < 0 || !/^\d*$/.test(path))
    throw new ConfigError(
      `--queue: the database number must be an integer >= 0; got ${JSON.stringify(path)}; ${expected}`,
    );
  const port = url.port ? Number(url.port) : 6379;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const auth = password ? `${username ?? ""}:***@` : username ? `${username}@` : "";
  return {
    host,
    port,
    db,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: url.protocol === "rediss:",
    shown: `${url.protocol}//${auth}${url.host}/${db}`,
  };
}

/**
 * ioredis options for BullMQ and our own keys: commands wait while the server is away (no
 * per-request retry limit, commands queued offline) and reconnection is tried every few seconds
 * for as long as it takes.
 */
export function redisOptions(a: QueueAddress) {
  return {
    host: a.host,
    port: a.port,
    db: a.db,
    ...(a.username ? { username: a.username } : {}),
    ...(a.password ? { password: a.password } : {}),
    ...(a.tls ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(250 * times, 3000),
  };
}
