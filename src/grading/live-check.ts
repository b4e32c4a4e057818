import { parseTestList } from "../dataset/errors.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { type EnvCheckVerdict, passToPassSentences } from "./env-check.js";
import type { LiveStatus } from "./live.js";

/**
 * The environment check of a SWE-bench-Live row (env-check.ts's rules, on Live's statuses): the
 * row's tests at the base commit with the test patch and without the model's patch, read by the
 * row's parser. A FAIL_TO_PASS test that passes, more than half of the PASS_TO_PASS tests failing,
 * or no result for any of the row's tests (when it has PASS_TO_PASS tests) is a mismatch; fewer
 * failures, or PASS_TO_PASS tests absent from the log (Live grades those as neither), are drift
 * (graded, with a warning).
 */
export function judgeLiveCheck(
  row: SwebenchInstance,
  statuses: Map<string, LiveStatus>,
  timedOut = false,
): EnvCheckVerdict {
  const f2p = parseTestList(row, "FAIL_TO_PASS");
  const p2p = parseTestList(row, "PASS_TO_PASS");
  const verdict: EnvCheckVerdict = {
    status: "ok",
    problems: [],
    fail_to_pass_passing: [],
    pass_to_pass_failing: [],
    pass_to_pass_not_run: [],
    fail_to_pass_total: f2p.length,
    pass_to_pass_total: p2p.length,
    results: statuses.size,
  };
  if (timedOut) {
    verdict.status = "timeout";
    return verdict;
  }
  const known = [...f2p, ...p2p].filter((n) => statuses.has(n));
  if (known.length === 0 && p2p.length === 0 && f2p.length > 0) {
    verdict.drift =
      "the tests gave no results without the patch, as expected when every test is FAIL_TO_PASS " +
      "(no PASS_TO_PASS tests to check the environment with); graded";
    return verdict;
  }
  if (known.length === 0) {
    verdict.problems.push(
      `the tests gave no results without the patch (none of the row's ${f2p.length + p2p.length} tests is in the log ` +
        `the row's parser read; ${statuses.size} other results): the run stopped before any test (a test module ` +
        "that cannot import the package, a missing test runner?); env_check_output.txt shows why",
    );
    verdict.status = "mismatch";
    return verdict;
  }
  verdict.fail_to_pass_passing = f2p.filter((n) => statuses.get(n) === "pass");
  for (const n of p2p) {
    const s = statuses.get(n);
    if (s === "fail") verdict.pass_to_pass_failing.push(n);
    else if (s === undefined) verdict.pass_to_pass_not_run.push(n);
  }
  const passing = verdict.fail_to_pass_passing;
  if (passing.length > 0) {
    const head = passing.slice(0, 5).join(", ");
    verdict.problems.push(
      `${passing.length} of ${f2p.length} FAIL_TO_PASS tests pass without the patch: ${head}${passing.length > 5 ? ` and ${passing.length - 5} more` : ""}`,
    );
  }
  // Live grades a test absent from the log as neither passed nor failed: only failures can
  // make a mismatch; absent PASS_TO_PASS tests are a warning.
  const sentences = passToPassSentences(verdict, p2p.length);
  if (verdict.pass_to_pass_failing.length * 2 > p2p.length) verdict.problems.push(...sentences);
  else if (sentences.length > 0) verdict.drift = `${sentences.join("; ")}; graded`;
  if (verdict.problems.length > 0) verdict.status = "mismatch";
  return verdict;
}
