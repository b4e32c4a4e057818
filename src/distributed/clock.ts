/**
 * Time as the queue's coordinator and workers see it: the current time and one-shot timers, given
 * to them so that tests can move time on by hand instead of sleeping (test/distributed/manual-clock.ts).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** Resolves after `ms` on `clock`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.after(ms, resolve));
}

/** A call to the queue that got no answer in time (or was not sent: the queue does not answer). */
export class NoAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NoAnswer";
  }
}

/** `promise`, or a NoAnswer rejection once `ms` pass on `clock` without it settling. */
export function within<T>(clock: Clock, ms: number, promise: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = clock.after(ms, () => reject(new NoAnswer(`${what}: no reply within ${ms / 1000} s`)));
    promise.then(
      (v) => {
        cancel();
        resolve(v);
      },
      (err) => {
        cancel();
        reject(err);
      },
    );
  });
}
