import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SwebenchInstance } from "../../src/dataset/types.js";

/** The data the tests read, kept in the repository (test/fixtures/README.md names each file's source). */
export const FIXTURES = join(import.meta.dirname, "..", "fixtures");

/** SWE-bench rows, the harness's spec table and real harness logs. */
export const SWEBENCH_DATA = join(FIXTURES, "swebench");

/** Chat templates the model families publish (Qwen3, Gemma 4, gpt-oss, GLM, Kimi-K2-Thinking, MiniMax-M2). */
export const CHAT_TEMPLATES = join(FIXTURES, "chat-templates");

/** Trajectories written by other scaffolds (SWE-agent, mini-swe-agent). */
export const TRAJECTORIES = join(FIXTURES, "trajectories");

/** The rows of one SWE-bench .jsonl file in test/fixtures/swebench, in file order. */
export function swebenchRows(file = "swe-bench-lite.test.jsonl"): SwebenchInstance[] {
  return readFileSync(join(SWEBENCH_DATA, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as SwebenchInstance);
}
