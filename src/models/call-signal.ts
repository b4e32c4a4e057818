/**
 * A signal for one SDK call that follows `parent` and is released afterwards. The SDKs add an
 * abort listener to the signal they are given and never remove it; a run that passes one long-lived
 * signal to every call would pile them up (MaxListenersExceededWarning after ten steps).
 */
export async function withCallSignal<T>(
  parent: AbortSignal | undefined,
  call: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!parent) return call(undefined);
  const ctl = new AbortController();
  const forward = () => ctl.abort(parent.reason);
  if (parent.aborted) ctl.abort(parent.reason);
  else parent.addEventListener("abort", forward, { once: true });
  try {
    return await call(ctl.signal);
  } finally {
    parent.removeEventListener("abort", forward);
  }
}
