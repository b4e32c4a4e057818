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
  /** v5's recorded exit code of the test command, when present. */
  exitCode?: number;
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
  const code = new RegExp(`${MARKERS.exitCode} (-?\\d+)`).exec(log);
  return { found: true, testOutput, exitCode: code ? Number(code[1]) : undefined };
}

/**
 * `get_logs_eval`: parse the section between the markers; if that gives an empty map, parse
 * the whole log. v5 adds: an empty map with no sign that a test suite ran is "not found", and a
 * non-zero recorded exit code with no FAILED or ERROR in the map is "not found" (a patch that
 * prints fake PASSED lines gains nothing).
 */
export function statusMapFromLog(
  log: string,
  parse: (text: string) => StatusMap,
  harness: HarnessVersion,
): { found: boolean; reason?: string; map: StatusMap } {
  const section = extractTestSection(log);
  if (!section.found) return { found: false, reason: section.reason, map: new Map() };
  let map = parse(section.testOutput);
  if (map.size === 0) map = parse(log);
  if (harness === "5") {
    if (map.size === 0 && !suiteRan(section.testOutput)) {
      return { found: false, reason: "no test results and no sign that a test suite ran", map };
    }
    const anyFailure = [...map.values()].some((s) => s === "FAILED" || s === "ERROR");
    if (section.exitCode !== undefined && section.exitCode !== 0 && !anyFailure) {
      return { found: false, reason: `the tests exited with ${section.exitCode} but no test failed`, map };
    }
  }
  return { found: true, map };
}

function suiteRan(text: string): boolean {
  return /(\d+ (passed|failed|errors?|skipped)|Ran \d+ tests?|tests finished|no tests ran|collected \d+ items?)/i.test(
    text,
  );
}

/** v5: an expected name cut inside an unclosed `[` matches parsed names with that prefix. */
function truncatedLookup(name: string, map: StatusMap): string | undefined {
  const open = name.lastIndexOf("[");
  if (open < 0 || name.indexOf("]", open) >= 0) return undefined;
  const hits = [...map.entries()].filter(([k]) => k.startsWith(name));
  if (hits.length === 0) return undefined;
  const ok = hits.map(([, s]) => s === "PASSED" || s === "XFAIL");
  if (ok.every(Boolean)) return "PASSED";
  if (ok.every((x) => !x)) return hits[0][1];
  return "FAILED";
}

/**
 * `get_eval_tests_report` (PASS_AND_FAIL). v4.1: success if the status is PASSED or XFAIL,
 * failure if absent, FAILED or ERROR; a SKIPPED test is in neither list. v5: a SKIPPED F2P test
 * is a failure, a SKIPPED P2P test a success, and truncated names prefix-match.
 */
export function getEvalTestsReport(
  map: StatusMap,
  failToPass: string[],
  passToPass: string[],
  harness: HarnessVersion,
): TestsStatus {
  const classify = (names: string[], p2p: boolean): Outcome => {
    const out: Outcome = { success: [], failure: [] };
    for (const name of names) {
      let status = map.get(name);
      if (status === undefined && harness === "5") status = truncatedLookup(name, map);
      if (status === "PASSED" || status === "XFAIL") out.success.push(name);
      else if (status === undefined || status === "FAILED" || status === "ERROR") out.failure.push(name);
      else if (harness === "5" && status === "SKIPPED") (p2p ? out.success : out.failure).push(name);
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
