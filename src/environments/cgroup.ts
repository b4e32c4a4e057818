import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { leftBehind } from "../util/process-alive.js";
import { endProcesses, waitUntil } from "../util/process-set.js";

/**
 * A control group around the processes of one environment (local, bwrap): it caps how many
 * processes they may have (`pids_limit`, a fork bomb stops there) and how much memory (`memory`),
 * and it lists every one of them, so `killAll` ends even those that left the process group or the
 * session (`setsid`, double forks). Works with cgroup v2 (the unified hierarchy) and v1 (the `pids`
 * and `memory` hierarchies), where this process may write the cgroup filesystem (root, or a
 * delegated subtree). Processes join by running {@link Cgroup.joinArgv} in front of their program.
 */
export interface Cgroup {
  /** Human-readable place, for messages (`v2:/patchloop/...`). */
  readonly where: string;
  /** Prefix of a command line: the process writes itself into the group, then execs the rest. */
  joinArgv(argv: string[]): string[];
  /** Moves a running process into the group (its children made before stay outside). Throws if it cannot. */
  add(pid: number): void;
  /** Pids of the live members. */
  members(): number[];
  /** Kills every member (repeatedly, until none is left or 2 s have passed). */
  killAll(): Promise<void>;
  /** Kills every member and removes the group. Safe to call twice. */
  remove(): Promise<void>;
}

/** What the group enforces; null: no limit of that kind (the group still tracks the processes). */
export interface CgroupLimits {
  pidsLimit: number | null;
  /** Bytes. */
  memoryBytes: number | null;
}

const ROOT = "/sys/fs/cgroup";
const PREFIX = "patchloop-";

/** `8g`, `512m`, `1.5G`, `1024` (bytes), docker's units: the size in bytes, or null when unreadable. */
export function parseMemory(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)i?b?\s*$/i.exec(value);
  if (!m) return null;
  const unit = { "": 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2].toLowerCase()] ?? 1;
  const bytes = Math.floor(Number(m[1]) * unit);
  return bytes > 0 ? bytes : null;
}

/** This process's cgroup path in each hierarchy: `""` → v2 path, controller name → v1 path. */
function ownPaths(): Map<string, string> {
  const out = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const c of m[1].split(",")) out.set(c, m[2]);
  }
  return out;
}

function isV2Mount(dir: string): boolean {
  return existsSync(join(dir, "cgroup.controllers"));
}

function canWrite(dir: string): boolean {
  try {
    const probe = join(dir, `${PREFIX}probe-${process.pid}-${Date.now()}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** Removes groups of this module whose creating process is gone (a `kill -9`ed run), killing what is left in them. */
function sweepStale(parent: string, procsFile: string): void {
  for (const name of leftBehind(parent, PREFIX)) {
    const dir = join(parent, name);
    for (const pid of readPids(join(dir, procsFile))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    try {
      rmdirSync(dir);
    } catch {
      // still busy: the next sweep takes it
    }
  }
}

/** One group in one hierarchy (v2 has one; v1 one per controller). */
interface Node {
  dir: string;
  procs: string;
}

let seq = 0;

/**
 * Makes a group for one environment with the given limits, or returns why that cannot be done
 * here (no cgroup filesystem, not writable, a controller missing): the caller then refuses the
 * limits loudly, or tracks processes another way.
 */
export function createCgroup(label: string, limits: CgroupLimits): Cgroup | string {
  if (process.platform !== "linux") return "control groups exist only on Linux";
  const own = ownPaths();
  const name = `${PREFIX}${process.pid}-${++seq}-${label.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 40)}`;
  const nodes: Node[] = [];
  const undo = () => {
    for (const n of nodes) {
      try {
        rmdirSync(n.dir);
      } catch {
        // nothing in it yet; best effort
      }
    }
  };
  try {
    if (isV2Mount(ROOT)) {
      const found = v2Parent(own.get("") ?? "/", limits);
      if ("problem" in found) return found.problem;
      const parent = found.dir;
      sweepStale(parent, "cgroup.procs");
      const dir = join(parent, name);
      mkdirSync(dir);
      nodes.push({ dir, procs: join(dir, "cgroup.procs") });
      if (limits.pidsLimit !== null) writeFileSync(join(dir, "pids.max"), String(limits.pidsLimit));
      if (limits.memoryBytes !== null) {
        writeFileSync(join(dir, "memory.max"), String(limits.memoryBytes));
        // No swap beyond the limit, so the limit is what the processes can really use.
        if (existsSync(join(dir, "memory.swap.max"))) writeFileSync(join(dir, "memory.swap.max"), "0");
      }
      return group(`v2:${dir.slice(ROOT.length)}`, nodes, join(dir, "cgroup.kill"));
    }
    // v1: `pids` always (it lists the processes even without a limit), `memory` when limited.
    const controllers = ["pids", ...(limits.memoryBytes !== null ? ["memory"] : [])];
    for (const c of controllers) {
      const mount = join(ROOT, c);
      if (!existsSync(join(mount, "cgroup.procs")))
        return `the cgroup v1 "${c}" hierarchy is not mounted at ${mount}`;
      const parent = join(mount, own.get(c) ?? "/");
      if (!canWrite(parent))
        return `${parent} is not writable by this process (run as root, or use cgroup v2 with delegation)`;
      sweepStale(parent, "cgroup.procs");
      const dir = join(parent, name);
      mkdirSync(dir);
      nodes.push({ dir, procs: join(dir, "cgroup.procs") });
      if (c === "pids" && limits.pidsLimit !== null)
        writeFileSync(join(dir, "pids.max"), String(limits.pidsLimit));
      if (c === "memory" && limits.memoryBytes !== null) {
        writeFileSync(join(dir, "memory.limit_in_bytes"), String(limits.memoryBytes));
        const memsw = join(dir, "memory.memsw.limit_in_bytes");
        if (existsSync(memsw)) writeFileSync(memsw, String(limits.memoryBytes));
      }
    }
    return group(`v1:${nodes.map((n) => n.dir.slice(ROOT.length)).join(",")}`, nodes, null);
  } catch (err) {
    undo();
    return `a control group could not be set up: ${(err as Error).message}`;
  }
}

/**
 * The v2 folder new groups go under: this process's own group when it may hold children with the
 * needed controllers, else a `patchloop` group at the root; or why neither works.
 */
function v2Parent(ownPath: string, limits: CgroupLimits): { dir: string } | { problem: string } {
  const wanted = [
    ...(limits.pidsLimit !== null ? ["pids"] : []),
    ...(limits.memoryBytes !== null ? ["memory"] : []),
  ];
  const enable = (dir: string): boolean => {
    const available = readFileSync(join(dir, "cgroup.controllers"), "utf8").trim().split(/\s+/);
    if (!wanted.every((c) => available.includes(c))) return false;
    const enabled = readFileSync(join(dir, "cgroup.subtree_control"), "utf8").trim().split(/\s+/);
    const missing = wanted.filter((c) => !enabled.includes(c));
    if (missing.length > 0)
      writeFileSync(join(dir, "cgroup.subtree_control"), missing.map((c) => `+${c}`).join(" "));
    return true;
  };
  const own = join(ROOT, ownPath);
  try {
    // A group with processes of its own cannot enable controllers for children (v2's rule), except the root.
    if (canWrite(own) && (ownPath === "/" || readPids(join(own, "cgroup.procs")).length === 0) && enable(own))
      return { dir: own };
  } catch {
    // try the root next
  }
  try {
    if (!enable(ROOT)) {
      return {
        problem: `the cgroup v2 hierarchy at ${ROOT} lacks the ${wanted.join(" and ")} controller(s)`,
      };
    }
    const dir = join(ROOT, "patchloop");
    if (!existsSync(dir)) mkdirSync(dir);
    if (!enable(dir)) return { problem: `${dir} cannot enable the ${wanted.join(" and ")} controller(s)` };
    return { dir };
  } catch (err) {
    return {
      problem: `${ROOT} is not writable by this process (${(err as Error).message}); run as root or with a delegated cgroup`,
    };
  }
}

/** Removes an empty group folder: true when it is gone (or was already), false while it is busy. */
function removedDir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

function group(where: string, nodes: Node[], killFile: string | null): Cgroup {
  let removed = false;
  const members = (): number[] => [...new Set(nodes.flatMap((n) => readPids(n.procs)))];
  const killAll = async (): Promise<void> => {
    await endProcesses({
      find: members,
      // cgroup.kill (v2) ends every member at once; the signals are for v1 and what it missed
      beforeRound: () => {
        if (!killFile || !existsSync(killFile)) return;
        try {
          writeFileSync(killFile, "1");
        } catch {
          // fall back to one signal per process
        }
      },
      pauseMs: 20,
      withinMs: 2000,
    });
  };
  return {
    where,
    joinArgv(argv) {
      // `echo $$ > procs` moves this shell (and so what it execs) into each hierarchy's group. bash,
      // not sh: dash drops variables with names it cannot use (ODD-NAME=1), and bash gives the
      // program it execs its own SHLVL back, so the wrapper leaves no trace in the environment.
      const steps = nodes.map(() => 'echo $$ > "$1" || exit 125; shift;').join(" ");
      return ["bash", "-c", `${steps} exec "$@"`, "patchloop-cgroup", ...nodes.map((n) => n.procs), ...argv];
    },
    add(pid) {
      for (const n of nodes) writeFileSync(n.procs, String(pid));
    },
    members,
    killAll,
    async remove() {
      if (removed) return;
      removed = true;
      await killAll();
      // EBUSY while the last members are still exiting: tried again for a second
      for (const n of nodes) await waitUntil(() => removedDir(n.dir), 1000, 20);
    },
  };
}
