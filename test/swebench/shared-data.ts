import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SwebenchInstance } from "../../src/swebench/types.js";

/** ../shared/swebench, resolved from this file (the repository root's sibling). */
export const SHARED_SWEBENCH = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/swebench");

/** Whether the shared data is present (it is in every checkout of this project). */
export const HAVE_SHARED = existsSync(join(SHARED_SWEBENCH, "swe-bench-lite.test.jsonl"));

/** Reads one of the shared .jsonl datasets. */
export function readSharedRows(file: string): SwebenchInstance[] {
  return readFileSync(join(SHARED_SWEBENCH, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as SwebenchInstance);
}
