import { execFileSync } from "node:child_process";

/**
 * Every container this process has started and not yet removed, so that they are removed when the
 * process ends: at `exit` (normal end, uncaught error, `process.exit`) and on SIGINT/SIGTERM. On a
 * signal that no one else handles, the containers are removed and the signal is raised again (the
 * process ends as it would have). When the program has its own handler for the signal, that
 * handler decides when to end; whatever is still registered then is removed at `exit`.
 */
const live = new Map<string, string>();
let installed = false;

/** Registers a container (by name or id) started with `executable`. */
export function registerContainer(nameOrId: string, executable: string): void {
  live.set(nameOrId, executable);
  installHandlers();
}

/** Forgets a container (it was removed). */
export function unregisterContainer(nameOrId: string): void {
  live.delete(nameOrId);
}

/** The containers registered now (for tests and diagnostics). */
export function liveContainers(): string[] {
  return [...live.keys()];
}

/** Removes every registered container synchronously (`rm -f`), grouped by executable. */
export function removeLiveContainersSync(): void {
  const byExecutable = new Map<string, string[]>();
  for (const [name, exe] of live) byExecutable.set(exe, [...(byExecutable.get(exe) ?? []), name]);
  live.clear();
  for (const [exe, names] of byExecutable) {
    try {
      execFileSync(exe, ["rm", "-f", ...names], { stdio: "ignore", timeout: 60_000 });
    } catch {
      // Nothing more can be done while exiting; `patchloop env gc` removes what is left.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  removeLiveContainersSync();
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

function installHandlers(): void {
  if (installed) return;
  installed = true;
  process.on("exit", removeLiveContainersSync);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
