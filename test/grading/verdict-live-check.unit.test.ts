import { describe, expect, it } from "vitest";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { agreeingResolution, type InstanceResult, verdictText } from "../../src/grading/instance-result.js";
import type { LiveStatus } from "../../src/grading/live.js";
import { judgeLiveCheck } from "../../src/grading/live-check.js";
import { formatRunReport } from "../../src/grading/report-text.js";
import { makeRunSummary } from "../../src/grading/summary.js";

const row = (f2p: string[], p2p: string[]): SwebenchInstance =>
  ({
    repo: "acme/calc",
    instance_id: "acme__calc-1",
    base_commit: "a".repeat(40),
    FAIL_TO_PASS: JSON.stringify(f2p),
    PASS_TO_PASS: JSON.stringify(p2p),
  }) as SwebenchInstance;

const map = (entries: Record<string, LiveStatus>) => new Map(Object.entries(entries));

describe("the environment check of a Live row (judgeLiveCheck)", () => {
  const r = row(["t_fix"], ["p1", "p2", "p3"]);
  it("ok when the fix's test fails and the others pass", () => {
    const v = judgeLiveCheck(r, map({ t_fix: "fail", p1: "pass", p2: "pass", p3: "pass" }));
    expect(v.status).toBe("ok");
    expect(v.problems).toEqual([]);
    expect(v.drift).toBeUndefined();
  });
  it("none of the row's tests in the log (other results only) is a mismatch", () => {
    const v = judgeLiveCheck(r, map({ "tests/test_ops.py": "fail" }));
    expect(v.status).toBe("mismatch");
    expect(v.problems).toEqual([
      "the tests gave no results without the patch (none of the row's 4 tests is in the log the row's parser read; 1 other results): the run stopped before any test (a test module that cannot import the package, a missing test runner?); env_check_output.txt shows why",
    ]);
  });
  it("a FAIL_TO_PASS test passing without the patch, or most PASS_TO_PASS tests failing, is a mismatch", () => {
    expect(judgeLiveCheck(r, map({ t_fix: "pass", p1: "pass", p2: "pass", p3: "pass" })).problems).toEqual([
      "1 of 1 FAIL_TO_PASS tests pass without the patch: t_fix",
    ]);
    const v = judgeLiveCheck(r, map({ t_fix: "fail", p1: "fail", p2: "fail", p3: "pass" }));
    expect(v.status).toBe("mismatch");
    expect(v.pass_to_pass_failing).toEqual(["p1", "p2"]);
  });
  it("PASS_TO_PASS tests absent from the log are a warning only (Live grades them as neither)", () => {
    const v = judgeLiveCheck(r, map({ t_fix: "fail", p1: "pass" }));
    expect(v.status).toBe("ok");
    expect(v.pass_to_pass_not_run).toEqual(["p2", "p3"]);
    expect(v.drift).toMatch(/^2 of 3 PASS_TO_PASS tests did not run without the patch .*; graded$/);
  });
  it("no results where every test is FAIL_TO_PASS is graded with a warning; a timeout is a timeout", () => {
    const v = judgeLiveCheck(row(["t_fix"], []), new Map());
    expect(v.status).toBe("ok");
    expect(v.drift).toMatch(/^the tests gave no results without the patch, as expected/);
    expect(judgeLiveCheck(r, new Map(), true).status).toBe("timeout");
  });
});

describe("one verdict", () => {
  it("RESOLVED_FULL only beside resolved", () => {
    expect(agreeingResolution(false, "RESOLVED_FULL")).toBe("RESOLVED_NO");
    expect(agreeingResolution(false, "RESOLVED_PARTIAL")).toBe("RESOLVED_PARTIAL");
    expect(agreeingResolution(true, "RESOLVED_NO")).toBe("RESOLVED_FULL");
  });

  const base = { repo: "acme/calc", seconds: 1 };
  const results: InstanceResult[] = [
    {
      ...base,
      instance_id: "a-1",
      outcome: "no_results",
      error: "no test results and no sign that a test suite ran",
    },
    { ...base, instance_id: "a-2", outcome: "unresolved", resolution: "RESOLVED_NO" },
    {
      ...base,
      instance_id: "a-3",
      outcome: "resolved",
      resolution: "RESOLVED_FULL",
      check: { status: "off", cached: false, problems: [], ranWith: "image x" },
      warnings: [
        "environment check not run: SWE-bench Pro rows grade with their own run script in their image",
      ],
    },
  ];
  it("the console text, the summary lists and the printed report agree; not checked instances are counted", () => {
    expect(results.map(verdictText)).toEqual(["no test results", "RESOLVED_NO", "RESOLVED_FULL"]);
    expect(verdictText({ ...results[0], infra: { reason: "out_of_memory", tier: "environment" } })).toBe(
      "no test results (infrastructure label: out_of_memory, environment)",
    );
    const rows = results.map((r) => ({ instance_id: r.instance_id, repo: r.repo }) as SwebenchInstance);
    const preds = results.map((r) => ({
      instance_id: r.instance_id,
      model_name_or_path: "m",
      model_patch: "x",
    }));
    const s = makeRunSummary(rows, preds, results, "r", "4.1", { checkEnv: true });
    expect(s.unresolved_ids).toEqual(["a-2"]);
    expect(s.completed_ids).toEqual(["a-2", "a-3"]);
    expect(s.error_ids).toEqual(["a-1"]);
    expect(s.patchloop.no_results_ids).toEqual(["a-1"]);
    expect(s.patchloop.resolutions).toEqual({ "a-2": "RESOLVED_NO", "a-3": "RESOLVED_FULL" });
    expect(s.patchloop.env_check).toEqual({
      enabled: true,
      checked: 0,
      cached: 0,
      mismatches: 0,
      not_checked: 1,
    });
    const text = formatRunReport(s);
    expect(text).toContain(
      "environment check: on (0 checked, 0 from the cache, 0 mismatched, 1 not checked (see the warnings)); harness 4.1 rules",
    );
    expect(text).toContain(
      "\nNo test results: not graded, not counted as unresolved (the harness would count them unresolved) (1):\n  a-1: no test results and no sign that a test suite ran\n\nUnresolved (1):\n  a-2: RESOLVED_NO\n",
    );
  });
});
