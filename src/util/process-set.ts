import { setTimeout as sleep } from "node:timers/promises";

/** Options of {@link endProcesses}. */
export interface EndProcessesOptions {
  /** The processes still to end, looked up afresh each round (what forked meanwhile is found too). */
  find: () => number[];
  /**
   * Sent to each process found; default SIGKILL. `null`: nothing is sent, the set is only watched
   * until it is gone (someone else signalled it; a list fixed beforehand must not be signalled,
   * since a pid that ended may be reused).
   */
  signal?: NodeJS.Signals | null;
  /** Runs before the signals of each round (e.g. writing a cgroup's `cgroup.kill`). */
  beforeRound?: () => void;
  /** Milliseconds between rounds. */
  pauseMs: number;
  /** Rounds of signals at most (default: no count)... */
  rounds?: number;
  /** ...and milliseconds at most (default: no limit); whichever comes first. */
  withinMs?: number;
}

/**
 * Ends a set of processes: signal each, pause, look again, until none is left, or the rounds or
 * the time are used up. Resolves the pids still there then ([] when all are gone). A process that
 * is gone, or not this user's to signal, is passed over. Every "kill these, wait, look again" of
 * patchloop (an environment's processes after a timeout, a cgroup's members, a sandbox's) is this.
 */
export async function endProcesses(o: EndProcessesOptions): Promise<number[]> {
  const deadline = o.withinMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + o.withinMs;
  const signal = o.signal === undefined ? "SIGKILL" : o.signal;
  for (let round = 0; ; round++) {
    const left = o.find();
    if (left.length === 0) return [];
    if (round === o.rounds || Date.now() > deadline) return left;
    o.beforeRound?.();
    if (signal) for (const pid of left) signalQuietly(pid, signal);
    await sleep(o.pauseMs);
  }
}

/** Waits until `done()` holds, looking every `pauseMs`, for `withinMs` at most; resolves whether it held. */
export async function waitUntil(done: () => boolean, withinMs: number, pauseMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (done()) return true;
    if (Date.now() > deadline) return false;
    await sleep(pauseMs);
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already, or not ours to signal
  }
}
