import { HttpStatusError, type JsonPost } from "./json-post.js";
import type { ReplicaPool } from "./replica-pool.js";

/** Whether a failed request means the replica could not serve it (as opposed to a bad request). */
function replicaFailed(err: unknown): boolean {
  if ((err as Error)?.name === "AbortError") return false;
  if (err instanceof HttpStatusError) return err.status >= 500 || err.status === 429;
  return true;
}

/**
 * A POST to `path` on a replica of the pool. Every try of a call asks the pool again, so a retry
 * after a replica failed goes to another one. `onReplica` hears of every request (per-instance counts).
 */
export function replicaPost(
  post: JsonPost,
  pool: ReplicaPool,
  path: string,
  onReplica?: (url: string, outcome: "ok" | "failed") => void,
): (body: string | Uint8Array, signal: AbortSignal) => Promise<unknown> {
  return async (body, signal) => {
    const lease = pool.lease(onReplica);
    try {
      const reply = await post(lease.url + path, body, signal);
      lease.done("ok");
      return reply;
    } catch (err) {
      lease.done(replicaFailed(err) ? "failed" : "ok");
      throw err;
    }
  };
}

/** The replicas a client sends to, and who hears of each request (per-instance counts). */
export interface Replicas {
  pool: ReplicaPool;
  onRequest?: (url: string, outcome: "ok" | "failed") => void;
}

/** A POST to `path`: on a replica of `replicas`' pool when given, else under `baseURL`. */
export function postTo(
  post: JsonPost,
  baseURL: string,
  path: string,
  replicas?: Replicas,
): (body: string | Uint8Array, signal: AbortSignal) => Promise<unknown> {
  return replicas
    ? replicaPost(post, replicas.pool, path, replicas.onRequest)
    : (body, signal) => post(`${baseURL}${path}`, body, signal);
}
