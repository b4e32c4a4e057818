/** Receives a warning meant for the person running patchloop (the CLI prints it; tests collect it). */
export type WarnFn = (message: string) => void;

const warned = new WeakMap<WarnFn, Set<string>>();

/** Calls `warn(message)` unless this same callback already received this same message. */
export function warnOnce(warn: WarnFn | undefined, message: string): void {
  if (!warn) return;
  let seen = warned.get(warn);
  if (!seen) {
    seen = new Set();
    warned.set(warn, seen);
  }
  if (seen.has(message)) return;
  seen.add(message);
  warn(message);
}
