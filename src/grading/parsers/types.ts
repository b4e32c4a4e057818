/** The status words the harness's parsers emit (`TestStatus` in the harness). */
export const TEST_STATUSES = ["FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * Test name -> status word, in first-seen order like a Python dict. Values are usually one of
 * `TEST_STATUSES`, but the pytest parsers store the first token of the line as it is (a line
 * starting `PASSEDx` yields `PASSEDx`), exactly as the harness does.
 */
export type StatusMap = Map<string, string>;

/** Which harness release a parser or the grading imitates. `4.1` is the default everywhere. */
export type HarnessVersion = "4.1" | "5";

/**
 * What a few parsers read of the instance besides the log, as the harness's read its `TestSpec`:
 * jekyll and immutable-js pick a runner's format by the instance id.
 */
export interface ParserContext {
  instanceId?: string;
  version?: string;
}

/** A log parser: the text of a test run in, the status map out. May throw `ParserCrash`. */
export type LogParser = (log: string, harness: HarnessVersion, context?: ParserContext) => StatusMap;

/** Whether `line` starts with one of the status words (Python's `any(line.startswith(...))`). */
export function startsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((s) => line.startsWith(s));
}

/** Whether `line` ends with one of the status words. */
export function endsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((s) => line.endsWith(s));
}
