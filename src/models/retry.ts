import type { ModelConfig } from "../config/schema.js";
import type { Failure } from "./failure.js";
import type { ModelErrorKind, RetryNotice } from "./types.js";

/** `model.retry` of the config: tries in all (the first included), delays in seconds. */
export type RetryPolicy = ModelConfig["retry"];

/** Waits `ms`; may end early when `signal` aborts. Injectable so tests do not wait. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real wait: a timer that an abort cancels. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

export interface RetryDeps {
  sleep: Sleep;
  /** A number in [0, 1) for the jitter (Math.random by default). */
  random: () => number;
  signal?: AbortSignal;
  /** Turns a thrown error into a Failure (see failure.ts). */
  classify: (err: unknown) => Failure;
  /** Told before every wait between tries. */
  onRetry?: (notice: RetryNotice) => void;
  /**
   * An `output_budget` failure: lower max_tokens for the next try. Returns false when that was
   * done already in this call (the failure then ends the query as context_exceeded).
   */
  lowerMaxTokens?: (failure: Failure) => boolean;
}

/** The outcome of `withRetries`: the value, or why it failed, with the tries made either way. */
export type Tried<T> =
  | { ok: true; value: T; tries: number }
  | {
      ok: false;
      kind: ModelErrorKind;
      message: string;
      status?: number;
      tries: number;
      contextLength?: number;
    };

/**
 * Delay before retry number `retry` (1 = the first retry): `initial_delay * 2^(retry-1)` capped at
 * `max_delay`, then "equal jitter" (between half and all of it), in milliseconds.
 */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const full = Math.min(policy.max_delay, policy.initial_delay * 2 ** (retry - 1)) * 1000;
  return full / 2 + (full / 2) * random();
}

/** Waits unless aborted first; true when the wait completed. */
async function pause(ms: number, deps: RetryDeps): Promise<boolean> {
  const { signal } = deps;
  if (!signal) {
    await deps.sleep(ms);
    return true;
  }
  if (signal.aborted) return false;
  let onAbort = () => {};
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([deps.sleep(ms, signal).then(() => !signal.aborted), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Runs `once` until it succeeds, fails for good, or the budget is spent: `policy.max_tries`
 * tries, and `policy.max_total` seconds for the whole call (a hung server then costs minutes, not
 * max_tries x request_timeout). Between tries it waits the server's Retry-After when given (capped at `max_delay`),
 * else the jittered exponential backoff. Never throws: `once`'s errors become data.
 * `label` (the model name) starts every message.
 */
export async function withRetries<T>(
  label: string,
  once: () => Promise<T>,
  policy: RetryPolicy,
  deps: RetryDeps,
): Promise<Tried<T>> {
  const max = Math.max(1, policy.max_tries);
  // The call's own time: what its tries took plus the waits between them (counted as asked
  // for, so an injected sleep that does not wait counts the same).
  const budgetMs = policy.max_total > 0 ? policy.max_total * 1000 : Number.POSITIVE_INFINITY;
  let spentMs = 0;
  const abortedAfter = (tries: number): Tried<T> => ({
    ok: false,
    kind: "aborted",
    message: `${label}: request aborted`,
    tries,
  });
  for (let n = 1; ; n++) {
    if (deps.signal?.aborted) return abortedAfter(n - 1);
    let failure: Failure;
    const t0 = Date.now();
    try {
      return { ok: true, value: await once(), tries: n };
    } catch (err) {
      failure = deps.classify(err);
    }
    spentMs += Date.now() - t0;
    const { status } = failure;
    const sized = failure.contextLength !== undefined ? { contextLength: failure.contextLength } : {};
    if (failure.kind === "aborted") return abortedAfter(n);
    if (failure.kind === "output_budget") {
      if (n < max && deps.lowerMaxTokens?.(failure)) continue;
      const message = `${label}: ${failure.message}; it still did not fit with max_tokens lowered to ${failure.fits}`;
      return { ok: false, kind: "context_exceeded", message, status, tries: n, ...sized };
    }
    if (failure.kind === "context_exceeded") {
      return {
        ok: false,
        kind: "context_exceeded",
        message: `${label}: ${failure.message}`,
        status,
        tries: n,
        ...sized,
      };
    }
    if (failure.kind === "fatal") {
      const message = `${label}: ${failure.message} (not retried)`;
      return { ok: false, kind: "fatal", message, status, tries: n };
    }
    if (n >= max) {
      const message = `${label}: gave up after ${n} ${n === 1 ? "try" : "tries"}; last error: ${failure.message}`;
      return { ok: false, kind: "retries_exhausted", message, status, tries: n };
    }
    const wait =
      failure.retryAfterMs !== undefined
        ? Math.min(failure.retryAfterMs, policy.max_delay * 1000)
        : backoffMs(n, policy, deps.random);
    if (spentMs + wait > budgetMs) {
      const message =
        `${label}: gave up after ${n} ${n === 1 ? "try" : "tries"} and ${Math.round(spentMs / 1000)} s ` +
        `(model.retry.max_total is ${policy.max_total} s); last error: ${failure.message}`;
      return { ok: false, kind: "retries_exhausted", message, status, tries: n };
    }
    spentMs += wait;
    deps.onRetry?.({ tryNumber: n, maxTries: max, waitMs: wait, reason: failure.message });
    if (!(await pause(wait, deps))) return abortedAfter(n);
  }
}
