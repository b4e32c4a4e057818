import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { attemptOfPath } from "../../src/inspect/attempts.js";
import { RunFolder } from "../../src/inspect/run-folder.js";
import { makeAttemptsFolder, SELECTION_XSS } from "./run-fixture.js";

/** Each attempt in a row as [k, exit status, steps, cost, patch chars, grade, shown]. */
function attemptFacts(o: Awaited<ReturnType<RunFolder["overview"]>>, id: string) {
  const row = o.rows.find((r) => r.id === id);
  return row?.attempts?.list.map((a) => [
    a.attempt,
    a.exitStatus,
    a.steps,
    a.cost,
    a.patchChars,
    a.grade,
    a.shown,
  ]);
}

/** The message JSON.parse gives for `text` on this Node version. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parsed`);
}

/** A fresh attempts folder for a test that changes it. */
async function withFolder(change: (dir: string) => void) {
  const dir = makeAttemptsFolder();
  try {
    change(dir);
    return await new RunFolder(dir).overview();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("run folder with attempts", () => {
  const dir = makeAttemptsFolder();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("one row per instance, showing the selected, else the standing, else the first attempt", async () => {
    const o = await new RunFolder(dir).overview();
    expect(o.problems).toEqual([]);
    expect(
      o.rows.map((r) => [r.id, r.attempts?.shown, r.attempts?.shownBy, r.trajectory, r.steps, r.exitStatus]),
    ).toEqual([
      [
        "django__django-11099",
        2,
        "selection",
        "django__django-11099/attempt-2/django__django-11099.traj.json",
        4,
        "Submitted",
      ],
      [
        "psf__requests-2317",
        1,
        "first",
        "psf__requests-2317/attempt-1/psf__requests-2317.traj.json",
        2,
        "Submitted",
      ],
      [
        "sympy__sympy-20590",
        2,
        "standing",
        "sympy__sympy-20590/attempt-2/sympy__sympy-20590.traj.json",
        3,
        "Submitted",
      ],
    ]);
  });

  test("every attempt side by side: exit status, steps, cost, patch size, grade from attempts.json", async () => {
    const o = await new RunFolder(dir).overview();
    expect(attemptFacts(o, "django__django-11099")).toEqual([
      [1, "Submitted", 2, 0.02, 78, "unresolved", false],
      [2, "Submitted", 4, 0.04, 113, "resolved", true],
      [3, "LimitsExceeded", 5, 0.05, 0, "empty", false],
    ]);
    // Attempt 3 of requests is known only from run.json's attempts; no attempts.json covers requests.
    expect(attemptFacts(o, "psf__requests-2317")).toEqual([
      [1, "Submitted", 2, 0.02, 68, null, true],
      [2, "Submitted", 3, 0.03, 68, null, false],
      [3, "EnvironmentError", null, 0, null, null, false],
    ]);
    const requests = o.rows.find((r) => r.id === "psf__requests-2317")?.attempts;
    expect(requests?.list[2]).toMatchObject({
      trajectory: null,
      error: "no trajectory file (only run.json records this attempt)",
    });
    expect(requests?.totalCost).toBeCloseTo(0.05, 10);
  });

  test("the row's result is the grade of the attempt it shows, not a preds.json graded before the selection", async () => {
    const o = await new RunFolder(dir).overview();
    expect(o.rows.map((r) => [r.id, r.resolved])).toEqual([
      ["django__django-11099", true],
      ["psf__requests-2317", null],
      ["sympy__sympy-20590", true],
    ]);
    expect(o.evalFiles).toEqual([
      "eval/patchloop-run-attempt-1/django__django-11099/report.json",
      "eval/patchloop-run-attempt-2/django__django-11099/report.json",
      "eval/patchloop-run/attempts.json",
      "eval/patchloop-run/django__django-11099/report.json",
      "eval/patchloop-run/sympy__sympy-20590/report.json",
    ]);
  });

  test("the attempt runs' reports (<run>-attempt-<k>) are kept per attempt, not as the instance's result", async () => {
    const index = await new RunFolder(dir).evalIndex();
    expect(index.results.get("django__django-11099")).toMatchObject({
      resolved: false,
      reportFile: "eval/patchloop-run/django__django-11099/report.json",
    });
    expect([...index.byAttempt.keys()]).toEqual([1, 2]);
    expect(index.byAttempt.get(2)?.get("django__django-11099")).toMatchObject({
      resolved: true,
      reportFile: "eval/patchloop-run-attempt-2/django__django-11099/report.json",
      files: [{ label: "report", path: "eval/patchloop-run-attempt-2/django__django-11099/report.json" }],
    });
    expect(index.byAttempt.get(1)?.get("django__django-11099")?.resolved).toBe(false);
  });

  test("the selection's signals per attempt, the judge and the reason, text kept as written", async () => {
    const o = await new RunFolder(dir).overview();
    const x = o.rows.find((r) => r.id === "django__django-11099")?.attempts;
    expect(x?.list.map((a) => a.signals)).toEqual([
      {
        status: "patch",
        dropped: null,
        group: 1,
        regression: { tested: true, broke: ["test_a (t.Tests)"], kept: 3, error: null, timedOut: false },
        reproduction: null,
        judgeNumber: 1,
      },
      {
        status: "patch",
        dropped: null,
        group: 2,
        regression: { tested: true, broke: [], kept: 4, error: null, timedOut: false },
        reproduction: { passed: 2, of: 2, error: null },
        judgeNumber: 2,
      },
      {
        status: "empty",
        dropped: "the patch is empty",
        group: null,
        regression: null,
        reproduction: null,
        judgeNumber: null,
      },
    ]);
    expect(x?.selection).toEqual({
      selectedAttempt: 2,
      reason: `attempt 2 broke no test ${SELECTION_XSS}`,
      steps: ["3 candidates, 1 dropped (empty)", "regression: candidate 0 broke 1 test"],
      judge: { answer: `${SELECTION_XSS} 2`, chose: 2, problem: null },
      problems: [],
    });
    expect(x?.totalCost).toBeCloseTo(0.11, 10);
  });

  test("a run named <x>-attempt-<k> with no <x> beside it is an ordinary run: its reports count for the instance", async () => {
    const o = await withFolder((dir) => {
      rmSync(join(dir, "eval/patchloop-run"), { recursive: true });
      rmSync(join(dir, "eval/patchloop-run-attempt-1"), { recursive: true });
    });
    const django = o.rows.find((r) => r.id === "django__django-11099");
    expect(django?.resolved).toBe(true);
    expect(o.evalFiles).toEqual(["eval/patchloop-run-attempt-2/django__django-11099/report.json"]);
    expect(django?.attempts?.list.map((a) => a.grade)).toEqual([null, null, null]);
  });

  test("attemptOfPath: only <id>/attempt-<k>/<id>.traj.json", () => {
    expect(attemptOfPath("a__b-1/attempt-12/a__b-1.traj.json")).toEqual({ id: "a__b-1", attempt: 12 });
    expect(attemptOfPath("a__b-1/a__b-1.traj.json")).toBeNull();
    expect(attemptOfPath("a__b-1/attempt-0/a__b-1.traj.json")).toBeNull();
    expect(attemptOfPath("a__b-1/attempt-2/other.traj.json")).toBeNull();
    expect(attemptOfPath("x/a__b-1/attempt-2/a__b-1.traj.json")).toBeNull();
  });
});

describe("run folder with attempts: broken and missing files", () => {
  test("a broken selection.jsonl line is a problem naming the line; the rest of the file still counts", async () => {
    const o = await withFolder((dir) => {
      const good = readFileSync(join(dir, "selection.jsonl"), "utf8");
      const wrong = JSON.stringify({
        instance_id: "sympy__sympy-20590",
        candidates: [],
        selected: "two",
        reason: 1,
      });
      writeFileSync(join(dir, "selection.jsonl"), `{not json\n${wrong}\n${good}`);
    });
    expect(o.problems).toEqual([
      `selection.jsonl line 1: not valid JSON (${jsonError("{not json")}); ` +
        "expected one JSON object per line as `patchloop select` writes it ({instance_id, candidates, selected, reason, ...})",
      "selection.jsonl line 2: selected: Invalid input: expected number, received string; " +
        "reason: Invalid input: expected string, received number; " +
        "expected one JSON object per line as `patchloop select` writes it ({instance_id, candidates, selected, reason, ...})",
    ]);
    const byId = new Map(o.rows.map((r) => [r.id, r.attempts]));
    expect(byId.get("django__django-11099")?.shownBy).toBe("selection");
    expect(byId.get("sympy__sympy-20590")).toMatchObject({ shown: 2, shownBy: "standing", selection: null });
  });

  test("a selection whose pick is no attempt, or an attempt the folder lacks, falls back to the standing attempt", async () => {
    const o = await withFolder((dir) => {
      const line = JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8"));
      line.candidates[1].source = "preds.json";
      const sympy = {
        instance_id: "sympy__sympy-20590",
        candidates: [{ index: 0, source: "attempt-9", status: "patch" }],
        selected: 0,
        reason: "only one",
      };
      writeFileSync(join(dir, "selection.jsonl"), `${JSON.stringify(line)}\n${JSON.stringify(sympy)}\n`);
    });
    expect(o.problems).toEqual([
      'selection.jsonl: django__django-11099: the selected candidate 1 comes from "preds.json", not an ' +
        "attempt-<k> folder; the row shows the standing attempt instead",
      "selection.jsonl: sympy__sympy-20590: selects attempt 9, which this folder does not hold",
    ]);
    const byId = new Map(o.rows.map((r) => [r.id, r.attempts]));
    expect(byId.get("django__django-11099")).toMatchObject({ shown: 1, shownBy: "standing" });
    expect(byId.get("django__django-11099")?.selection?.selectedAttempt).toBeNull();
    expect(byId.get("sympy__sympy-20590")).toMatchObject({ shown: 2, shownBy: "standing" });
  });

  test("a broken attempts.json is a problem; grades are then unknown and the main report counts", async () => {
    const o = await withFolder((dir) => {
      writeFileSync(
        join(dir, "eval/patchloop-run/attempts.json"),
        '{"instances": [{"instance_id": "x", "attempts": {"1": "maybe"}}]}',
      );
    });
    expect(o.problems).toEqual([
      "eval/patchloop-run/attempts.json: instances.0.attempts.1: Invalid option: expected one of " +
        '"resolved"|"unresolved"|"empty"; expected {instances: [{instance_id, attempts: {"1": "resolved" | ' +
        '"unresolved" | "empty", ...}}]} as `patchloop eval` writes it',
    ]);
    const django = o.rows.find((r) => r.id === "django__django-11099");
    expect(django?.attempts?.list.map((a) => a.grade)).toEqual([null, null, null]);
    expect(django?.resolved).toBe(false);
    const notJson = await withFolder((dir) =>
      writeFileSync(join(dir, "eval/patchloop-run/attempts.json"), "{"),
    );
    expect(notJson.problems).toEqual([
      expect.stringMatching(
        /^eval\/patchloop-run\/attempts\.json: not valid JSON \(.+\); expected \{instances/,
      ),
    ]);
  });

  test("an unreadable attempt trajectory keeps its place with its error; a bad standing_attempt is a problem", async () => {
    const o = await withFolder((dir) => {
      writeFileSync(join(dir, "sympy__sympy-20590/attempt-1/sympy__sympy-20590.traj.json"), "[1, 2");
      const run = JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
      run.instances["psf__requests-2317"].standing_attempt = 7;
      writeFileSync(join(dir, "run.json"), JSON.stringify(run));
    });
    expect(o.problems).toEqual([
      "run.json: psf__requests-2317: standing_attempt 7 is not among its attempts (1, 2, 3)",
    ]);
    const sympy = o.rows.find((r) => r.id === "sympy__sympy-20590")?.attempts?.list[0];
    expect(sympy).toMatchObject({ attempt: 1, steps: null, exitStatus: "LimitsExceeded" });
    expect(sympy?.error).toMatch(
      /^\.\/sympy__sympy-20590\/attempt-1\/sympy__sympy-20590\.traj\.json is not valid JSON/,
    );
    expect(o.rows.find((r) => r.id === "psf__requests-2317")?.attempts?.shownBy).toBe("first");
  });

  test("a missing selection.jsonl, attempts.json and run.json: attempts shown from their trajectories alone", async () => {
    const o = await withFolder((dir) => {
      for (const f of ["selection.jsonl", "run.json", "eval"]) rmSync(join(dir, f), { recursive: true });
    });
    expect(o.problems).toEqual([]);
    expect(
      o.rows.map((r) => [r.id, r.attempts?.shown, r.attempts?.shownBy, r.attempts?.list.length]),
    ).toEqual([
      ["django__django-11099", 1, "first", 3],
      ["psf__requests-2317", 1, "first", 2],
      ["sympy__sympy-20590", 1, "first", 2],
    ]);
  });
});
