import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeCheck } from "../../src/grading/env-check.js";
import { MARKERS } from "../../src/grading/grading.js";
import { mismatchAdvice } from "../../src/grading/report-text.js";
import { resolveTestSpec } from "../../src/grading/test-spec.js";
import { SWEBENCH_DATA, swebenchRows } from "../support/data.js";

const rows = new Map(swebenchRows().map((r) => [r.instance_id, r]));
const spec = (id: string) => {
  const row = rows.get(id);
  if (!row) throw new Error(`${id} is not in the vendored Lite rows`);
  return resolveTestSpec(row);
};
/** A real harness log (test/fixtures/swebench/harness-logs) between eval.sh's markers. */
const realLog = (file: string) =>
  `${MARKERS.start}\n${readFileSync(join(SWEBENCH_DATA, "harness-logs", file), "utf8")}\n${MARKERS.end}\n`;

describe("the environment check tells PASS_TO_PASS tests that did not run from tests that failed", () => {
  it("tests absent from a real log (the test command ran another file) did not run: no failure, no package blamed", () => {
    // sympy__sympy-21612's real run (sympy/printing/tests/test_latex.py and parsing tests) judged as
    // sympy__sympy-24152's check, whose tests are in sympy/physics/quantum/tests/test_tensorproduct.py.
    const s = spec("sympy__sympy-24152");
    const v = judgeCheck(realLog("sympy__sympy-21612.before.log"), s, "4.1", undefined);
    expect(v.status).toBe("mismatch");
    expect(v.results).toBe(100);
    expect(v.pass_to_pass_failing).toEqual([]);
    expect(v.pass_to_pass_not_run).toEqual(s.passToPass);
    expect(v.problems).toEqual([
      "6 of 6 PASS_TO_PASS tests did not run without the patch (no result in the test log: never run, not failed): " +
        "test_sparse_matrices, test_tensor_product_dagger, test_tensor_product_abstract, test_tensor_product_commutator, " +
        "test_tensor_product_simp and 1 more; usually a collection error or a test module that fails to import, " +
        "a test id the log parser names differently, or a test command that does not select them; " +
        "env_check_output.txt shows which",
    ]);
    const advice = mismatchAdvice(v.problems);
    expect(advice).toEqual([
      "- Tests that should pass never ran (no result in the log; nothing says they fail): look in " +
        "env_check_output.txt for a collection error or an ImportError in a test module (a module or package missing here), " +
        "compare the test ids the log prints with the row's (a parametrized id, a class prefix), and check the " +
        "test command selects those files (`test_cmd` in --specs).",
      "  See docs/grading.md. --no-check-env grades anyway (the grades may then be wrong).",
    ]);
    expect(advice.join("\n")).not.toContain("package versions");
  });

  it("tests that ran and failed in a real log are still failures (psf__requests-3362: two timeouts without a network)", () => {
    const v = judgeCheck(
      realLog("psf__requests-3362.before.log"),
      spec("psf__requests-3362"),
      "4.1",
      undefined,
    );
    expect(v.status).toBe("ok");
    expect(v.pass_to_pass_not_run).toEqual([]);
    expect(v.pass_to_pass_failing).toEqual([
      "tests/test_requests.py::TestTimeout::test_connect_timeout",
      "tests/test_requests.py::TestTimeout::test_total_timeout_connect",
    ]);
    expect(v.drift).toBe(
      "2 of 75 PASS_TO_PASS tests fail without the patch: tests/test_requests.py::TestTimeout::test_connect_timeout, " +
        "tests/test_requests.py::TestTimeout::test_total_timeout_connect; " +
        "graded, but no patch can come out RESOLVED_FULL in this environment",
    );
  });
});
