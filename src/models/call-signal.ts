/** setTimeout's longest delay; a larger one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** No complete reply within `model.request_timeout`: the try's own timer aborted it. */
export class RequestTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`no response within ${ms} ms`);
    this.name = "RequestTimeoutError";
  }
}

/**
 * Runs one try with a signal of its own, aborted when `parent` aborts or when `timeoutMs` have
 * passed; in the second case the try rejects with {@link RequestTimeoutError}, whatever the
 * aborted request threw. The timer and the listener on `parent` are released afterwards: a run
 * passes one long-lived signal to every call, and listeners left on it would pile up
 * (MaxListenersExceededWarning after ten steps).
 */
export async function withCallSignal<T>(
  parent: AbortSignal | undefined,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      ctl.abort(new RequestTimeoutError(timeoutMs));
    },
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  const forward = () => ctl.abort(parent?.reason);
  if (parent?.aborted) forward();
  else parent?.addEventListener("abort", forward, { once: true });
  try {
    return await call(ctl.signal);
  } catch (err) {
    if (timedOut) throw new RequestTimeoutError(timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", forward);
  }
}
