import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

/** One line of /proc/PID/stat, the fields patchloop needs. */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  pgid: number;
}

/** Reads /proc/PID/stat; undefined when the process is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // comm is in parentheses and may itself contain spaces or parentheses: split after the last ')'.
  const close = text.lastIndexOf(")");
  const comm = text.slice(text.indexOf("(") + 1, close);
  const rest = text
    .slice(close + 2)
    .split(" ")
    .map((f) => Number(f));
  return { pid, comm, ppid: rest[1], pgid: rest[2] };
}

/** The live children of `pid` (Linux /proc scan). */
export function childrenOf(pid: number): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.ppid === pid) out.push(stat);
  }
  return out;
}

/** Every live descendant of `pid`, children before grandchildren. */
export function descendantsOf(pid: number): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat) all.push(stat);
  }
  const out: ProcStat[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!parents.has(p.pid) && parents.has(p.ppid)) {
        parents.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

/** The pids of `pid` in each pid namespace from ours inward (/proc/PID/status NSpid); [] when gone. */
export function namespacePids(pid: number): number[] {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("NSpid:"));
    return line ? line.slice("NSpid:".length).trim().split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/**
 * Pids of the live processes whose environment holds `NAME=value` (Linux /proc scan; only
 * processes this user may read). A variable set for every command of an environment finds the
 * processes that left its process group or session (`setsid`, double forks), as long as they kept
 * their environment.
 */
export function processesWithVariable(name: string, value: string): number[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const inside = Buffer.concat([Buffer.from([0]), needle]);
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = readProcFile(`/proc/${entry}/environ`);
    if (environ === undefined) continue;
    if (environ.subarray(0, needle.length).equals(needle) || environ.includes(inside))
      out.push(Number(entry));
  }
  return out;
}

/**
 * One buffer for every /proc file read by processesWithVariable (readFileSync allocated a new one
 * per process, at every environment's close: a visible part of a batch's CPU, issue 45); it grows
 * for a larger file and is never shrunk.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** A /proc file's bytes, in `scratch` (valid until the next call); undefined when unreadable. */
function readProcFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, length);
        scratch = bigger;
      }
      const n = readSync(fd, scratch, length, scratch.length - length, null);
      if (n === 0) return scratch.subarray(0, length);
      length += n;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
