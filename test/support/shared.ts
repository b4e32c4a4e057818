import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SwebenchInstance } from "../../src/swebench/types.js";

/** ../shared beside the repository (read, never copied). */
export const SHARED = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "shared");

/** The rows of a SWE-bench .jsonl file in ../shared/swebench. */
export function sharedRows(file = "swe-bench-lite.test.jsonl"): SwebenchInstance[] {
  return readFileSync(join(SHARED, "swebench", file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as SwebenchInstance);
}
