import type { StatusMap } from "../src/grading/parsers/index.js";

/**
 * The rules of bench/multilingual-rows.ts, apart from its command line so that the unit tests can
 * check the vendored rows against the vendored logs (test/grading/graded-multilingual.unit.test.ts).
 */

/** The harness's `extract_patches`: a file whose path contains one of these words is a test file. */
const TEST_WORDS = ["test", "tests", "e2e", "testing"];

export function isTestFile(path: string): boolean {
  return TEST_WORDS.some((w) => path.includes(w));
}

/**
 * The file sections of a `git diff --no-renames` (each starts at its `diff --git a/P b/P` line),
 * with the path P that the harness tests (unidiff's `path`: both sides name the same file here).
 */
export function splitByFile(diff: string): { path: string; text: string }[] {
  return diff
    .split(/^(?=diff --git )/m)
    .filter((text) => text.startsWith("diff --git "))
    .map((text) => ({ path: /^diff --git a\/.* b\/(.*)$/m.exec(text)?.[1] ?? "", text }));
}

const passed = (s: string | undefined) => s === "PASSED" || s === "XFAIL";

/** FAIL_TO_PASS and PASS_TO_PASS from the status maps before and after the gold patch. */
export function testLists(
  before: StatusMap,
  after: StatusMap,
): { failToPass: string[]; passToPass: string[] } {
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const [name, status] of after) {
    if (!passed(status)) continue;
    (passed(before.get(name)) ? passToPass : failToPass).push(name);
  }
  return { failToPass, passToPass };
}
