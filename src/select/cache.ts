import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { writeFileAtomic } from "../util/atomic-write.js";

/**
 * Results selection computed once and reuses (docs/selection.md "Cache"): under
 * `OUT/.select-cache/<instance id>/`, one JSON file per result, named by what it depends on
 * (hashed): the base commit, the environment kind, the normalized patch, the test files and the
 * test command. Selecting again with other settings reuses every result whose inputs are the same.
 * A file that cannot be read or does not have the expected shape counts as missing and is replaced,
 * as does one written under another CACHE_VERSION.
 */
/**
 * Part of every key: raised when a result of the same inputs would now be read differently
 * (2: a test command stopped at its CPU limit is known stopped whatever its exit status, where
 * version 1 kept the partial results of a run cut short as a finished one; the examples
 * run as one session after the changed packages' names are imported; 3: every test run in a
 * workbench of its own, where version 2's shared one let an earlier candidate's leftovers change a
 * later candidate's results, and no symbolic link followed when reading a candidate's files).
 */
export const CACHE_VERSION = 3;

export class SelectCache {
  private readonly dir: string;

  constructor(outputDir: string, instanceId: string) {
    this.dir = join(outputDir, ".select-cache", instanceId.replace(/[^\w.-]/g, "_"));
  }

  private file(kind: string, key: unknown[]): string {
    const h = createHash("sha256")
      .update(JSON.stringify([CACHE_VERSION, ...key]))
      .digest("hex")
      .slice(0, 32);
    return join(this.dir, `${kind}-${h}.json`);
  }

  async get<T>(kind: string, key: unknown[], schema: z.ZodType<T>): Promise<T | undefined> {
    try {
      const parsed = schema.safeParse(JSON.parse(await readFile(this.file(kind, key), "utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async put(kind: string, key: unknown[], value: unknown): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file(kind, key), `${JSON.stringify(value)}\n`);
  }
}
