import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Temp files of `writeFileAtomic`: `.<name>.<pid>.<8 hex>.tmp`. */
const TEMP_FILE = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temp files a killed writer left in `dir` and its direct subfolders. Only for a
 * folder no one else writes to (the caller holds its lock). Returns how many were removed.
 */
export function removeStaleTempFiles(dir: string): number {
  let removed = 0;
  const sweep = (d: string, depth: number) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && TEMP_FILE.test(e.name)) {
        rmSync(join(d, e.name), { force: true });
        removed++;
      } else if (e.isDirectory() && depth > 0) sweep(join(d, e.name), depth - 1);
    }
  };
  sweep(dir, 1);
  return removed;
}

function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

/** Writes via a temp file and a rename, so readers (and a killed process) never see half a file. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempName(path);
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** Synchronous variant, for signal handlers and exit paths. */
export function writeFileAtomicSync(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempName(path);
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
