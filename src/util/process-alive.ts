import { existsSync, readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Whether the owner of something patchloop leaves on disk or in an engine (a container, a stable
 * work tree, a run folder's lock, a cgroup, a batch's work-tree root, a worker's spool) is still
 * running: the one rule every sweep of leftovers asks. An owner is written as its label
 * `host:pid:start` (start: the pid's start time in clock ticks since boot, so a reused pid is not
 * taken for the owner); a name that carries only a pid is an owner of this host whose start is unknown.
 */
export interface Owner {
  host: string;
  pid: number;
  /** Field 22 of /proc/PID/stat when the owner was recorded; undefined: unknown (any process with the pid counts). */
  start?: string;
}

/** The label of an owner (this process by default): `host:pid:start`, `?` for an unknown start. */
export function ownerLabel(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? "?"}`;
}

/**
 * Reads a label written by {@link ownerLabel}. A pid that is not a positive integer gives pid 0, and
 * a label without its start field an empty start: neither is ever alive.
 */
export function parseOwner(label: string): Owner {
  const [host = "", pidText = "", start = ""] = label.split(":");
  const pid = Number(pidText);
  return { host, pid: Number.isInteger(pid) && pid > 0 ? pid : 0, start: start === "?" ? undefined : start };
}

/** Field 22 of /proc/PID/stat, or undefined when the process is gone or /proc is not there. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/**
 * True while the owner runs; `other-host` when it belongs to another machine (nothing can be told
 * from here). With /proc, the pid must exist and, when the start is known, have started then;
 * without /proc (macOS), whether the pid exists is all that can be told.
 */
export function ownerAlive(owner: Owner | string): boolean | "other-host" {
  const o = typeof owner === "string" ? parseOwner(owner) : owner;
  if (o.host !== hostname()) return "other-host";
  if (!Number.isInteger(o.pid) || o.pid <= 0) return false;
  if (!existsSync("/proc/self/stat")) return signalReaches(o.pid);
  const now = processStartTime(o.pid);
  return now !== undefined && (o.start === undefined || now === o.start);
}

/** Whether a process of this host, known by its pid alone (a folder name), is alive: {@link ownerAlive}'s rule. */
export function pidAlive(pid: number): boolean {
  return ownerAlive({ host: hostname(), pid }) === true;
}

/**
 * The entries of `dir` named `<prefix><pid>-...` whose process is gone (by {@link pidAlive}; never
 * this process's): what runs killed before their cleanup left there. [] when `dir` cannot be read.
 */
export function leftBehind(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const pid = name.startsWith(prefix) ? Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1] ?? 0) : 0;
    return pid > 0 && pid !== process.pid && !pidAlive(pid);
  });
}

/** Signal 0 reaches the pid (a process of another user, EPERM, exists too). */
function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
