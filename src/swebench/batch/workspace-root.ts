import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../../util/process-alive.js";

const PREFIX = "patchloop-batch-";

/**
 * Removes the work-tree folders that batch processes killed before their cleanup (`kill -9`)
 * left in `parent`: `patchloop-batch-<pid>-*` whose process no longer exists.
 */
export async function sweepStaleRoots(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    await rm(join(parent, name), { recursive: true, force: true }).catch(() => undefined);
    removed.push(join(parent, name));
  }
  return removed;
}

/** A new folder for this process's work trees: `<parent>/patchloop-batch-<pid>-XXXXXX`. */
export function makeWorkspaceRoot(parent = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}
