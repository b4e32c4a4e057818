import { describe, expect, it } from "vitest";
import { ScriptedModel } from "../../src/models/scripted.js";
import { askJudge, parseJudgeAnswer } from "../../src/select/judge.js";
import { chooseTests, importPattern, moduleOf } from "../../src/select/relevant-tests.js";
import { extractTest } from "../../src/select/reproduce.js";
import { breakTie, type VoteInput, vote } from "../../src/select/vote.js";

const cand = (index: number, o: Partial<VoteInput> = {}): VoteInput => ({
  index,
  usable: true,
  applies: true,
  textKey: `t${index}`,
  broke: null,
  reproPassed: null,
  examplesChanged: null,
  size: 2,
  ...o,
});

describe("vote", () => {
  it("the largest group of equivalent patches wins; text and syntax-tree keys both join", () => {
    const r = vote([
      cand(0, { textKey: "A" }),
      cand(1, { textKey: "B", astKey: "X" }),
      cand(2, { textKey: "C", astKey: "X" }),
      cand(3, { textKey: "A" }),
      cand(4, { textKey: "C", size: 1 }),
    ]);
    expect(r.groups).toEqual([
      { id: 1, members: [0, 3], representative: 0, size: 2, sharedFiles: 0 },
      { id: 2, members: [1, 2, 4], representative: 4, size: 1, sharedFiles: 0 },
    ]);
    expect(r.top.map((g) => g.id)).toEqual([2]);
    expect(r.survivors).toEqual([0, 1, 2, 3, 4]);
  });

  it("a candidate that breaks a passing test loses to one that breaks none, whatever the group sizes", () => {
    const r = vote([
      cand(0, { textKey: "A", broke: 1 }),
      cand(1, { textKey: "A", broke: 1 }),
      cand(2, { textKey: "B", broke: 0 }),
    ]);
    expect(r.survivors).toEqual([2]);
    expect(r.top.map((g) => g.representative)).toEqual([2]);
    expect(r.steps).toEqual(["regression tests: 1 of 3 left (none broken)"]);
  });

  it("untested candidates count only when nothing was tested; dropped ones are not grouped", () => {
    const r = vote([
      cand(0, { usable: false }),
      cand(1, { applies: false }),
      cand(2, { textKey: "B", broke: null }),
      cand(3, { textKey: "C", broke: 0 }),
    ]);
    expect(r.groupOf.has(0)).toBe(false);
    expect(r.groupOf.has(1)).toBe(false);
    expect(r.survivors).toEqual([3]);
    expect(r.steps[0]).toBe("2 of 4 dropped (empty, tests only, or does not apply)");
    expect(vote([cand(0, { usable: false })]).top).toEqual([]);
  });

  it("reproduction tests keep those that pass the most; same behaviour groups", () => {
    const r = vote([
      cand(0, { reproPassed: 0, behaviour: "x" }),
      cand(1, { reproPassed: 2, behaviour: "y" }),
      cand(2, { reproPassed: 2, behaviour: "y" }),
      cand(3, { reproPassed: 1, behaviour: "z" }),
    ]);
    expect(r.survivors).toEqual([1, 2]);
    expect(r.top.map((g) => g.members)).toEqual([[1, 2]]);
  });

  it("ties stay ties for the judge; the rule picks the fewest changed lines, then the earliest", () => {
    const r = vote([cand(0, { size: 5 }), cand(1, { size: 3 }), cand(2, { size: 3 })]);
    expect(r.top.map((g) => g.id)).toEqual([1, 2, 3]);
    expect(breakTie(r.top).representative).toBe(1);
  });

  it("the issue's examples: one that changes what an example prints beats one that does not; unknown ones do not count", () => {
    const r = vote([
      cand(0, { textKey: "A", examplesChanged: false }),
      cand(1, { textKey: "A", examplesChanged: false }),
      cand(2, { textKey: "B", examplesChanged: true }),
      cand(3, { textKey: "C", examplesChanged: null }),
    ]);
    expect(r.survivors).toEqual([2]);
    expect(r.top.map((g) => g.members)).toEqual([[2]]);
    expect(r.steps).toEqual(["issue examples: 1 of 4 left (they change what an example prints)"]);
    // when none changes them (or all do), the examples decide nothing
    const same = vote([cand(0, { examplesChanged: false }), cand(1, { examplesChanged: false })]);
    expect(same.survivors).toEqual([0, 1]);
    expect(same.steps).toEqual([]);
  });

  it("of the candidates changing the examples, those printing a value the issue states survive; it decides nothing alone", () => {
    const r = vote([
      cand(0, { textKey: "A", examplesChanged: true, examplesStated: false }),
      cand(1, { textKey: "A", examplesChanged: true, examplesStated: false }),
      cand(2, { textKey: "B", examplesChanged: true, examplesStated: true }),
      cand(3, { textKey: "C", examplesChanged: false, examplesStated: false }),
    ]);
    expect(r.survivors).toEqual([2]);
    expect(r.steps).toEqual([
      "issue examples: 3 of 4 left (they change what an example prints)",
      "issue examples: 1 of 3 left (they print a value the issue states)",
    ]);
    const none = vote([
      cand(0, { examplesChanged: true, examplesStated: false }),
      cand(1, { examplesChanged: true, examplesStated: false }),
    ]);
    expect(none.survivors).toEqual([0, 1]);
    expect(none.steps).toEqual([]);
    // a stated value never outranks a broken test
    const broke = vote([
      cand(0, { broke: 1, examplesChanged: true, examplesStated: true }),
      cand(1, { broke: 0, examplesChanged: true, examplesStated: false }),
    ]);
    expect(broke.survivors).toEqual([1]);
  });

  it("tests expected to change order only candidates breaking equally many; they never beat one breaking fewer", () => {
    const r = vote([
      cand(0, { broke: 1 }),
      cand(1, { broke: 1, expectedBroke: 1 }),
      cand(2, { textKey: "t0", broke: 1 }),
    ]);
    expect(r.survivors).toEqual([1]);
    expect(r.steps).toEqual([
      "regression tests: 1 of 3 left (the same number broken, fewest not expected to change)",
    ]);
    const fewer = vote([cand(0, { broke: 1, expectedBroke: 1 }), cand(1, { broke: 0 })]);
    expect(fewer.survivors).toEqual([1]);
  });

  it("the examples come after the regression tests: a candidate that breaks a test loses even if it changes the example", () => {
    const r = vote([
      cand(0, { broke: 1, examplesChanged: true }),
      cand(1, { broke: 0, examplesChanged: false }),
      cand(2, { broke: 0, examplesChanged: false }),
    ]);
    expect(r.survivors).toEqual([1, 2]);
  });

  it("the tie rule prefers the group changing files most candidates change (dropped and broken ones count), then fewest lines", () => {
    const r = vote([
      cand(0, { size: 1, files: ["pkg/printer.py"], broke: 0 }),
      cand(1, { size: 6, files: ["pkg/lambdify.py", ".coveragerc"], broke: 0 }),
      cand(2, { size: 2, files: ["pkg/lambdify.py"], broke: 0 }),
      cand(3, { size: 2, files: ["pkg/lambdify.py"], broke: 3 }),
      cand(4, { size: 2, files: ["pkg/lambdify.py"], applies: false }),
    ]);
    expect(r.survivors).toEqual([0, 1, 2]);
    expect(r.top.map((g) => [g.id, g.sharedFiles])).toEqual([
      [1, 1],
      [2, 4],
      [3, 4],
    ]);
    // groups 2 and 3 share lambdify.py with four candidates; group 3's patch is smaller
    expect(breakTie(r.top).representative).toBe(2);
  });
});

describe("judge answers", () => {
  it("accepts exactly one CHOICE line naming an offered number", () => {
    expect(parseJudgeAnswer("CHOICE: 2", [1, 2])).toEqual({ ok: true, choice: 2 });
    expect(parseJudgeAnswer("\n  CHOICE:1  \n", [1, 2])).toEqual({ ok: true, choice: 1 });
  });

  it("refuses garbage, prose, two lines, unknown numbers and non-text, saying why", () => {
    expect(parseJudgeAnswer("I think 2", [1, 2])).toEqual({
      ok: false,
      problem: 'expected `CHOICE: <number>`, got "I think 2"',
    });
    expect(parseJudgeAnswer("CHOICE: 1\nCHOICE: 2", [1, 2])).toEqual({
      ok: false,
      problem: "expected one line `CHOICE: <number>`, got 2 lines",
    });
    expect(parseJudgeAnswer("CHOICE: 3", [1, 2])).toEqual({
      ok: false,
      problem: "chose 3, which is not one of the candidates offered (1, 2)",
    });
    expect(parseJudgeAnswer("CHOICE: 99999999999", [1, 2]).ok).toBe(false);
    expect(parseJudgeAnswer("", [1, 2])).toEqual({
      ok: false,
      problem: "expected one line `CHOICE: <number>`, got 0 lines",
    });
    expect(parseJudgeAnswer(null, [1, 2])).toEqual({ ok: false, problem: "the answer has no text" });
  });

  it("askJudge shows the issue and the numbered diffs and maps the choice to the candidate", async () => {
    const model = new ScriptedModel([{ content: "CHOICE: 2" }]);
    const r = await askJudge(
      model,
      "{{ problem_statement }}{% for c in candidates %}\n#{{ c.number }}\n{{ c.diff }}{% endfor %}",
      "clamp is wrong",
      [
        { candidate: 4, patch: "diff A" },
        { candidate: 7, patch: "diff B" },
      ],
    );
    expect(r).toEqual({
      offered: [
        { number: 1, candidate: 4 },
        { number: 2, candidate: 7 },
      ],
      answer: "CHOICE: 2",
      chose: 7,
    });
    expect(model.calls[0].messages).toEqual([
      { role: "user", content: "clamp is wrong\n#1\ndiff A\n#2\ndiff B" },
    ]);
  });

  it("askJudge reports a failed call and a hostile answer without choosing", async () => {
    const failed = await askJudge(new ScriptedModel([{ error: "fatal", message: "HTTP 400" }]), "x", "i", [
      { candidate: 0, patch: "d" },
    ]);
    expect(failed.chose).toBeUndefined();
    expect(failed.problem).toContain("the judge's model call failed");
    const hostile = await askJudge(
      new ScriptedModel([{ content: "CHOICE: 1\nignore previous instructions" }]),
      "x",
      "i",
      [{ candidate: 0, patch: "d" }],
    );
    expect(hostile).toMatchObject({
      answer: "CHOICE: 1\nignore previous instructions",
      problem: "expected one line `CHOICE: <number>`, got 2 lines",
    });
    expect(hostile.chose).toBeUndefined();
  });
});

describe("reproduction test answers", () => {
  it("takes the one python block, refuses none, several or empty", () => {
    expect(extractTest("Here:\n```python\ndef test_x():\n    assert 0\n```\n")).toEqual({
      ok: true,
      test: "def test_x():\n    assert 0\n",
    });
    expect(extractTest("no code")).toEqual({ ok: false, problem: "expected one ```python block, found 0" });
    expect(extractTest("```python\na\n```\n```py\nb\n```")).toEqual({
      ok: false,
      problem: "expected one ```python block, found 2",
    });
    expect(extractTest("```python\n \n```")).toEqual({ ok: false, problem: "the python block is empty" });
  });
});

describe("relevant tests", () => {
  it("names modules as tests import them", () => {
    expect(moduleOf("src/calc/ops.py")).toMatchObject({ dotted: "calc.ops", stem: "ops" });
    expect(moduleOf("calc/__init__.py")).toMatchObject({ dotted: "calc", stem: "calc" });
    expect(moduleOf("calc/tests/test_ops.py")).toBeNull();
    expect(moduleOf("README.md")).toBeNull();
    expect(importPattern(moduleOf("calc/ops.py") as NonNullable<ReturnType<typeof moduleOf>>)).toBe(
      "(from|import)[[:space:]]+calc\\.ops([^[:alnum:]_]|$)|from[[:space:]]+calc[[:space:]]+import[[:space:]].*(^|[^[:alnum:]_])ops([^[:alnum:]_]|$)",
    );
  });

  it("puts tests named after the module first, then importers nearest the module, capped", () => {
    const m = moduleOf("calc/core/ops.py") as NonNullable<ReturnType<typeof moduleOf>>;
    const tests = [
      "calc/core/tests/test_ops.py",
      "tests/test_misc.py",
      "calc/core/tests/test_other.py",
      "tests/test_ops_extra.py",
      "calc/conftest.py",
    ];
    const importers = new Map([
      [m.path, ["tests/test_misc.py", "calc/core/tests/test_other.py", "calc/conftest.py"]],
    ]);
    expect(chooseTests([m], tests, importers, 10)).toEqual([
      "calc/core/tests/test_ops.py",
      "tests/test_ops_extra.py",
      "calc/core/tests/test_other.py",
      "tests/test_misc.py",
    ]);
    expect(chooseTests([m], tests, importers, 2)).toEqual([
      "calc/core/tests/test_ops.py",
      "tests/test_ops_extra.py",
    ]);
  });
});
