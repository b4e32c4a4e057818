import { describe, expect, it } from "vitest";
import { categorize, type EndFacts, type GradeFacts } from "../../src/report/categories.js";
import { touchedFiles } from "../../src/report/collect.js";
import { distribution } from "../../src/report/distribution.js";

const graded = (
  outcome: GradeFacts["outcome"],
  f2p: number | null = null,
  p2p: number | null = null,
): GradeFacts => ({
  outcome,
  fail_to_pass_failing: f2p,
  pass_to_pass_failing: p2p,
});
const facts = (o: Partial<EndFacts>): EndFacts => ({
  exit_status: "Submitted",
  exit_message: "",
  patch_empty: false,
  ...o,
});

describe("categorize", () => {
  it("not submitted: by exit status; LimitsExceeded is the cost limit only when its message says so", () => {
    expect(
      categorize(
        facts({ exit_status: "LimitsExceeded", exit_message: "step limit reached: 4 of 4 model calls used" }),
      ),
    ).toBe("step_limit");
    expect(
      categorize(facts({ exit_status: "LimitsExceeded", exit_message: "cost limit reached: $1.0000 of $1" })),
    ).toBe("cost_limit");
    expect(categorize(facts({ exit_status: "TimeExceeded" }))).toBe("time_limit");
    expect(categorize(facts({ exit_status: "ContextExceeded" }))).toBe("context_full");
    expect(categorize(facts({ exit_status: "RepeatedFormatError" }))).toBe("format_errors");
    expect(categorize(facts({ exit_status: "EnvironmentError" }))).toBe("environment_error");
    expect(categorize(facts({ exit_status: "ModelError" }))).toBe("model_error");
    expect(categorize(facts({ exit_status: "Interrupted" }))).toBe("interrupted");
    expect(categorize(facts({ exit_status: null }))).toBe("not_finished");
  });

  it("a patch graded resolved is resolved even when the agent did not submit (graded from the work tree's diff)", () => {
    expect(categorize(facts({ exit_status: "LimitsExceeded", grade: graded("resolved") }))).toBe("resolved");
  });

  it("submitted: what grading found; infrastructure failures apart from the model's", () => {
    expect(categorize(facts({ patch_empty: true }))).toBe("empty_patch");
    expect(categorize(facts({}))).toBe("not_graded");
    expect(categorize(facts({ grade: graded("patch_apply_failed") }))).toBe("not_applied");
    expect(categorize(facts({ grade: graded("unresolved", 1, 0) }))).toBe("still_failing");
    expect(categorize(facts({ grade: graded("unresolved", 1, 2) }))).toBe("broke_passing");
    expect(categorize(facts({ grade: graded("unresolved", 0, 1) }))).toBe("broke_passing");
    expect(categorize(facts({ grade: graded("unresolved") }))).toBe("unresolved");
    expect(categorize(facts({ grade: graded("timeout") }))).toBe("tests_timed_out");
    expect(categorize(facts({ grade: graded("no_results") }))).toBe("no_test_results");
    expect(categorize(facts({ grade: graded("environment_mismatch") }))).toBe("infrastructure");
    expect(categorize(facts({ grade: graded("infrastructure") }))).toBe("infrastructure");
  });
});

describe("distribution", () => {
  it("total, mean, median (even n: the middle two), nearest-rank p90, max", () => {
    expect(distribution([4, 1, 3, 2])).toEqual({
      n: 4,
      total: 10,
      mean: 2.5,
      median: 2.5,
      p90: 4,
      min: 1,
      max: 4,
    });
    expect(distribution([5, 1, 9, 7, 3, 2, 8, 4, 6, 10])).toMatchObject({ median: 5.5, p90: 9 });
    expect(distribution([])).toEqual({ n: 0, total: 0, mean: 0, median: 0, p90: 0, min: 0, max: 0 });
  });
});

describe("touchedFiles", () => {
  it("names each file once, new files by their new name, deleted ones by their old", () => {
    const patch = [
      "diff --git a/src/a.py b/src/a.py",
      "--- a/src/a.py",
      "+++ b/src/a.py",
      "@@ -1 +1 @@",
      "-x",
      "+y",
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -0,0 +1 @@",
      "+hello",
      "diff --git a/old.txt b/old.txt",
      "deleted file mode 100644",
      "--- a/old.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "",
    ].join("\n");
    expect(touchedFiles(patch)).toEqual(["new.txt", "old.txt", "src/a.py"]);
    expect(touchedFiles("")).toEqual([]);
    expect(touchedFiles("this is not a diff")).toEqual([]);
  });
});
