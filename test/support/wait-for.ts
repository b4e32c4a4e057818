/** Polls `check` every 50 ms for up to `ms`; resolves with whether it became true. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** How long {@link waitUntil} waits, how often it looks, and what it shows when the time is up. */
export interface WaitUntilOptions {
  /** Milliseconds before it gives up (default 60 000). */
  ms?: number;
  /** Milliseconds between looks (default 50). */
  everyMs?: number;
  /** What the failure message shows besides `what` (a screen, a log's end), read when it gives up. */
  shows?: () => string;
}

/**
 * Polls `check` until it holds; rejects with "timed out after N ms waiting until WHAT" (and what
 * `shows` returns) when `ms` pass first. A check that throws ends the wait with its error.
 */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  o: WaitUntilOptions = {},
): Promise<void> {
  const ms = o.ms ?? 60_000;
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) {
      const shown = o.shows ? `; it shows:\n${o.shows()}` : "";
      throw new Error(`timed out after ${ms} ms waiting until ${what}${shown}`);
    }
    await new Promise((r) => setTimeout(r, o.everyMs ?? 50));
  }
}
