import { HttpStatusError } from "./checked-fetch.js";
import type { ReplicaPool } from "./replica-pool.js";

/** Whether a failed request means the replica could not serve it (as opposed to a bad request). */
function replicaFailed(err: unknown): boolean {
  if ((err as Error)?.name === "AbortError") return false;
  if (err instanceof HttpStatusError) return err.status >= 500 || err.status === 429;
  return true;
}

/**
 * A fetch that sends each request to a replica of the pool: the URL's `base` prefix (the SDK's
 * base URL) is replaced by the replica's. Every try of a call asks the pool again, so a retry after
 * a replica failed goes to another one. `onReplica` hears of every request (per-instance counts).
 */
export function replicaFetch(
  inner: typeof fetch,
  pool: ReplicaPool,
  base: string,
  onReplica?: (url: string, outcome: "ok" | "failed") => void,
): typeof fetch {
  return async (input, init) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const lease = pool.lease(onReplica);
    const target = href.startsWith(base) ? lease.url + href.slice(base.length) : href;
    try {
      const res = await inner(target, init);
      lease.done("ok");
      return res;
    } catch (err) {
      lease.done(replicaFailed(err) ? "failed" : "ok");
      throw err;
    }
  };
}
