import type { HarnessVersion, StatusMap } from "./parsers/index.js";

/** The harness's markers (constants.py); eval.sh prints the start/end ones through `set -x`. */
export const MARKERS = {
  start: ">>>>> Start Test Output",
  end: ">>>>> End Test Output",
  applyFailed: ">>>>> Patch Apply Failed",
  resetFailed: ">>>>> Reset Failed",
  testsErrored: ">>>>> Tests Errored",
  testsTimedOut: ">>>>> Tests Timed Out",
  exitCode: ">>>>> Test Exit Code:",
} as const;

/** `ResolvedStatus` of the harness. */
export type ResolvedStatus = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";

/** Successes and failures of one test category. */
export interface Outcome {
  success: string[];
  failure: string[];
}

/** `tests_status` of a harness report.json. */
export interface TestsStatus {
  FAIL_TO_PASS: Outcome;
  PASS_TO_PASS: Outcome;
  FAIL_TO_FAIL: Outcome;
  PASS_TO_FAIL: Outcome;
}

/** What the harness gets out of a test_output.txt before grading. */
export interface LogSection {
  /** False where the harness says "not found" (a failure marker, a missing marker, v5's checks). */
  found: boolean;
  /** Why not found, in words (patchloop's addition; the harness only logs it). */
  reason?: string;
  /** The text between the markers. */
  testOutput: string;
}

/**
 * `get_logs_eval`'s first half: a log with any failure marker, or lacking either the start or
 * the end marker, is "not found"; else the text between the first start marker and the first
 * end marker after it.
 */
export function extractTestSection(log: string): LogSection {
  const bad = [MARKERS.applyFailed, MARKERS.resetFailed, MARKERS.testsErrored, MARKERS.testsTimedOut].find(
    (m) => log.includes(m),
  );
  if (bad) return { found: false, reason: `the log contains "${bad}"`, testOutput: "" };
  if (!log.includes(MARKERS.start) || !log.includes(MARKERS.end)) {
    return { found: false, reason: "the log lacks the start or end test-output marker", testOutput: "" };
  }
  const testOutput = log.split(MARKERS.start)[1].split(MARKERS.end)[0];
  return { found: true, testOutput };
}

/**
 * v5's evidence that a test runner ran at all (its `SUITE_RAN`), looked for in the whole log when
 * the parser found no results. Every count must be non-zero (a runner that prints "Executed 0 of
 * 0" did not run anything). Mostly JavaScript runners: a pytest or django run always leaves
 * parsed lines, so there an empty map with no such line means the suite never started.
 */
const SUITE_RAN =
  /Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok$/m;

/** Whether a log shows that a test suite ran (v5's check for an empty status map). */
export function suiteRan(log: string): boolean {
  return SUITE_RAN.test(log);
}

/**
 * The test command's exit status that v5's eval.sh prints after the end marker
 * (`>>>>> Test Exit Code: N`). The harness takes the first such line anywhere in the log; here
 * only text after the last end marker counts, so a test that prints a fake exit-code line inside
 * the test output cannot hide the real one (the one hostile case where this is stricter).
 */
export function recordedExitCode(log: string): number | undefined {
  const at = log.lastIndexOf(MARKERS.end);
  const tail = at < 0 ? log : log.slice(at);
  const m = new RegExp(`${MARKERS.exitCode}\\s*(-?\\d+)`).exec(tail);
  return m ? Number(m[1]) : undefined;
}

/**
 * `get_logs_eval`: parse the section between the markers; if that gives an empty map, parse
 * the whole log. v5 adds: an empty map with no sign that a test suite ran is "not found", and a
 * non-zero recorded exit code with results but no FAILED or ERROR among them is "not found" (a
 * patch that prints fake PASSED lines gains nothing).
 */
export function statusMapFromLog(
  log: string,
  parse: (text: string) => StatusMap,
  harness: HarnessVersion,
): { found: boolean; reason?: string; map: StatusMap; exitCode?: number } {
  const section = extractTestSection(log);
  if (!section.found) return { found: false, reason: section.reason, map: new Map() };
  let map = parse(section.testOutput);
  if (map.size === 0) map = parse(log);
  const exitCode = harness === "5" ? recordedExitCode(log) : undefined;
  if (harness === "5") {
    if (map.size === 0 && !suiteRan(log)) {
      return { found: false, reason: "no test results and no sign that a test suite ran", map, exitCode };
    }
    const anyFailure = [...map.values()].some((s) => s === "FAILED" || s === "ERROR");
    if (exitCode !== undefined && exitCode !== 0 && map.size > 0 && !anyFailure) {
      return {
        found: false,
        reason: `the tests exited with ${exitCode} but no test failed (the log does not describe the run)`,
        map,
        exitCode,
      };
    }
  }
  return { found: true, map, exitCode };
}

/**
 * v5's `_resolve_case`: the key of `name` in the map; for a name with more `[` than `]` (ids cut
 * inside a parameter, 676 of them in Verified) the first parsed name it prefixes, when all such
 * names agree on passing or not. Undefined when there is no key.
 */
export function resolveCase(name: string, map: StatusMap): string | undefined {
  if (map.has(name)) return name;
  const count = (c: string) => name.split(c).length - 1;
  if (count("[") <= count("]")) return undefined;
  const hits = [...map.keys()].filter((k) => k.startsWith(name));
  if (hits.length === 0) return undefined;
  const passing = new Set(hits.map((k) => PASSING.has(map.get(k) as string)));
  return passing.size === 1 ? hits[0] : undefined;
}

const PASSING = new Set(["PASSED", "XFAIL"]);

/** How a row is graded (`EvalType` of the harness): v5 rows say so in `eval_type`. */
export type EvalType = "pass_and_fail" | "fail_only";

/**
 * `get_eval_tests_report`. PASS_AND_FAIL, v4.1: success if the status is PASSED or XFAIL,
 * failure if absent, FAILED or ERROR; a SKIPPED test is in neither list. v5: names resolve with
 * `resolveCase`, a SKIPPED F2P test is a failure and a SKIPPED P2P test a success. FAIL_ONLY (both
 * releases): only a test present and FAILED fails; anything else succeeds.
 */
export function getEvalTestsReport(
  map: StatusMap,
  failToPass: string[],
  passToPass: string[],
  harness: HarnessVersion,
  evalType: EvalType = "pass_and_fail",
): TestsStatus {
  const classify = (names: string[], p2p: boolean): Outcome => {
    const out: Outcome = { success: [], failure: [] };
    for (const name of names) {
      if (evalType === "fail_only") {
        (map.get(name) === "FAILED" ? out.failure : out.success).push(name);
        continue;
      }
      const key = harness === "5" ? resolveCase(name, map) : map.has(name) ? name : undefined;
      const status = key === undefined ? undefined : map.get(key);
      if (status === "PASSED" || status === "XFAIL") out.success.push(name);
      else if (harness === "5" && status === "SKIPPED") (p2p ? out.success : out.failure).push(name);
      else if (status === undefined || status === "FAILED" || status === "ERROR") out.failure.push(name);
    }
    return out;
  };
  return {
    FAIL_TO_PASS: classify(failToPass, false),
    PASS_TO_PASS: classify(passToPass, true),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

function rate(o: Outcome): number {
  const total = o.success.length + o.failure.length;
  return total === 0 ? 1 : o.success.length / total;
}

/** `get_resolution_status`: FULL when f2p = p2p = 1, PARTIAL when 0 < f2p < 1 and p2p = 1, else NO. */
export function getResolutionStatus(report: TestsStatus): ResolvedStatus {
  const f2p = rate(report.FAIL_TO_PASS);
  const p2p = rate(report.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return "RESOLVED_FULL";
  if (f2p > 0 && f2p < 1 && p2p === 1) return "RESOLVED_PARTIAL";
  return "RESOLVED_NO";
}
