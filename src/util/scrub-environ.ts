import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/**
 * Removes variable `name` from this process: from `process.env` (so no child gets it) and from the
 * block of text the kernel shows as `/proc/<pid>/environ`, which stays as the process started
 * whatever `process.env` says, and which any process of the same user may read. The value's bytes
 * there are overwritten with `*` through `/proc/self/mem` (a process may write its own memory).
 * Returns false when that second part could not be done (not Linux, no /proc): the caller says so.
 */
export function scrubVariable(name: string): boolean {
  const had = process.env[name] !== undefined;
  delete process.env[name];
  if (!had) return true;
  try {
    return overwriteInEnviron(name);
  } catch {
    return false;
  }
}

/** The start and end of the environment block in memory (fields 50 and 51 of /proc/self/stat). */
function environBlock(): { start: number; end: number } {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The command name (field 2) is in parentheses and may hold spaces: count after its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { start: Number(fields[47]), end: Number(fields[48]) };
}

function overwriteInEnviron(name: string): boolean {
  const { start, end } = environBlock();
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 1 << 24)
    return false;
  const fd = openSync("/proc/self/mem", "r+");
  try {
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const key = Buffer.from(`${name}=`);
    let found = false;
    // Each entry is NAME=VALUE followed by a NUL; an entry starts the block or follows a NUL.
    for (let i = block.indexOf(key); i >= 0; i = block.indexOf(key, i + 1)) {
      if (i > 0 && block[i - 1] !== 0) continue;
      const from = i + key.length;
      const to = block.indexOf(0, from) < 0 ? block.length : block.indexOf(0, from);
      block.fill(0x2a, from, to);
      writeSync(fd, block, from, to - from, start + from);
      found = true;
    }
    return found;
  } finally {
    closeSync(fd);
  }
}
