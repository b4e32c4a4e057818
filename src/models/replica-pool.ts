import type { ModelConfig } from "../config/schema.js";

/** Requests one replica got and how many of them failed (no connection, 5xx, 429). */
export interface ReplicaCounts {
  requests: number;
  failures: number;
}

/** One server of `model.base_url` given as a list. */
interface Replica {
  url: string;
  inFlight: number;
  /** Left out until then (ms since the epoch); 0 when healthy. */
  outUntil: number;
  lastPicked: number;
  counts: ReplicaCounts;
}

/** A request's lease on a replica: its URL, and how to report how the request went. */
export interface ReplicaLease {
  url: string;
  /** `failed`: the replica did not serve the request (no connection, 5xx, 429). Call once. */
  done(outcome: "ok" | "failed"): void;
}

/**
 * Replicas of one model (several vLLM servers, one per GPU), shared by every model client of a
 * process: each request goes to the replica with the fewest requests in flight (the one picked
 * least recently among equals); a replica whose request failed is left out for `cooldownMs`, then
 * tried again. When every replica is out, the one that comes back first is tried.
 */
export class ReplicaPool {
  private readonly replicas: Replica[];
  private picks = 0;

  constructor(
    urls: string[],
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.replicas = urls.map((url) => ({
      url,
      inFlight: 0,
      outUntil: 0,
      lastPicked: 0,
      counts: { requests: 0, failures: 0 },
    }));
  }

  get urls(): string[] {
    return this.replicas.map((r) => r.url);
  }

  /** Takes a replica for one request. */
  lease(onDone?: (url: string, outcome: "ok" | "failed") => void): ReplicaLease {
    const now = this.now();
    const healthy = this.replicas.filter((r) => r.outUntil <= now);
    const pool =
      healthy.length > 0 ? healthy : [...this.replicas].sort((a, b) => a.outUntil - b.outUntil).slice(0, 1);
    const chosen = pool.reduce((best, r) =>
      r.inFlight < best.inFlight || (r.inFlight === best.inFlight && r.lastPicked < best.lastPicked)
        ? r
        : best,
    );
    chosen.inFlight++;
    chosen.lastPicked = ++this.picks;
    chosen.counts.requests++;
    let settled = false;
    return {
      url: chosen.url,
      done: (outcome) => {
        if (settled) return;
        settled = true;
        chosen.inFlight--;
        if (outcome === "failed") {
          chosen.counts.failures++;
          chosen.outUntil = this.now() + this.cooldownMs;
        } else chosen.outUntil = 0;
        onDone?.(chosen.url, outcome);
      },
    };
  }

  /** Requests and failures per replica so far. */
  counts(): Record<string, ReplicaCounts> {
    return Object.fromEntries(this.replicas.map((r) => [r.url, { ...r.counts }]));
  }

  /** Requests in flight per replica. */
  inFlight(): Record<string, number> {
    return Object.fromEntries(this.replicas.map((r) => [r.url, r.inFlight]));
  }
}

/** `model.base_url` as a list of URLs (trailing slashes removed); [] when it is not set. */
export function baseUrls(config: Pick<ModelConfig, "base_url">): string[] {
  const v = config.base_url;
  const list = v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.map((u) => u.replace(/\/+$/, ""));
}

/**
 * The pool of `model.base_url` when it lists two or more replicas; null otherwise. `now` times the
 * cooldowns (default: Date.now).
 */
export function createReplicaPool(
  config: Pick<ModelConfig, "base_url" | "replica_cooldown">,
  now: () => number = Date.now,
): ReplicaPool | null {
  const urls = baseUrls(config);
  return urls.length > 1 ? new ReplicaPool(urls, config.replica_cooldown * 1000, now) : null;
}
