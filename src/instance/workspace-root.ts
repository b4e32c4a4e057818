import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leftBehind } from "../util/process-alive.js";

const PREFIX = "patchloop-batch-";

/**
 * Removes the work-tree folders that batch processes killed before their cleanup (`kill -9`)
 * left in `parent`: `patchloop-batch-<pid>-*` whose process no longer exists.
 */
export async function sweepStaleRoots(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of leftBehind(parent, PREFIX)) {
    await rm(join(parent, name), { recursive: true, force: true }).catch(() => undefined);
    removed.push(join(parent, name));
  }
  return removed;
}

/** A new folder for this process's work trees: `<parent>/patchloop-batch-<pid>-XXXXXX`. */
export function makeWorkspaceRoot(parent = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}
