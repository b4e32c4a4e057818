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

/**
 * A file of a run could not be written (a full disk, a read-only folder, no permission): what
 * stops a run, named with the path and the reason. The temp file of the attempt is gone.
 */
export class FileWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    reason: string,
  ) {
    super(`cannot write ${path}: ${reason}`);
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: "no space left on the device (free some space, then run the same command again)",
  EDQUOT: "the disk quota is exhausted (free some space, then run the same command again)",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
};

/** `err` from writing `path`, as the FileWriteError that names the file and a reason a person can act on. */
export function writeError(path: string, err: unknown): FileWriteError {
  const e = err as NodeJS.ErrnoException;
  return new FileWriteError(path, e.code, (e.code && REASONS[e.code]) || e.message);
}

/**
 * Writes via a temp file and a rename, so readers (and a killed process) never see half a file.
 * The folder is created only when the temp file cannot be (ENOENT): a file saved at every step
 * costs no mkdir per step.
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const tmp = tempName(path);
  try {
    try {
      await writeFile(tmp, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      await mkdir(dirname(path), { recursive: true });
      await writeFile(tmp, data);
    }
    await rename(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw writeError(path, err);
  }
}

/** Synchronous variant, for signal handlers and exit paths. */
export function writeFileAtomicSync(path: string, data: string): void {
  const tmp = tempName(path);
  try {
    try {
      writeFileSync(tmp, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(tmp, data);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw writeError(path, err);
  }
}
