import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSelect, type SelectFlags } from "../../src/cli/select.js";
import { loadConfig } from "../../src/config/load.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { selectRunFolder } from "../../src/select/index.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { havePytest } from "../support/pytest-skips.js";
import { buildSelectFixture, type SelectFixture, selectRow, trajectory } from "./fixture.js";

const ID = "acme__calc-1";
const BROKEN = "tests/test_ops.py::test_clamp_low";

function config(...layers: string[]) {
  return loadConfig({
    configArgs: [
      "swebench",
      "environment.environment_class=local",
      "run.select.regression.timeout=5",
      "run.select.wall_timeout=5",
      ...layers,
    ],
    defaultConfig: "swebench",
  }).config;
}

/** A run folder with run.json naming `dataset`, and one attempt folder per patch. */
function runFolder(root: string, patches: string[], dataset?: string): string {
  const dir = join(root, `run-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  if (dataset)
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ info: { dataset: { subset: dataset, split: "test" }, selection: {} } }),
    );
  patches.forEach((p, i) => {
    const a = join(dir, ID, `attempt-${i + 1}`);
    mkdirSync(a, { recursive: true });
    writeFileSync(join(a, `${ID}.traj.json`), trajectory(ID, p));
  });
  return dir;
}

/** A row whose hidden fields throw when read: selection must never read them. */
function guardedRow(f: SelectFixture, shown: Partial<SwebenchInstance> = {}): SwebenchInstance {
  const row = selectRow(f, shown);
  for (const key of ["FAIL_TO_PASS", "PASS_TO_PASS", "test_patch", "patch"]) {
    Object.defineProperty(row, key, {
      enumerable: true,
      get() {
        throw new Error(`selection read the hidden field ${key}`);
      },
    });
  }
  return row;
}

/** Selects among `patches` (attempts 1..n of the fixture's instance) with the row's `shown` fields and config layers. */
async function selectOne(
  root: string,
  f: SelectFixture,
  patches: string[],
  shown: Partial<SwebenchInstance>,
  ...layers: string[]
): Promise<SelectionRecord> {
  const run = await selectRunFolder(runFolder(root, patches), {
    config: config(...layers),
    rows: [guardedRow(f, shown)],
    reposDir: f.reposDir,
    python: "/usr/bin/python3",
  });
  return run.records[0];
}

const lines = (dir: string): SelectionRecord[] =>
  readFileSync(join(dir, "selection.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** A candidate's examples record without the hash of the outputs (compared by equality where it matters). */
function examplesWithoutHash(c: { examples?: { outputs_sha256?: string } }) {
  if (!c.examples) return c.examples;
  const { outputs_sha256: _hash, ...rest } = c.examples;
  return rest;
}

describe.skipIf(!havePytest())(
  "patchloop select on a repository the test builds (local, Debian's pytest)",
  () => {
    let f: SelectFixture;
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "patchloop-select-"));
      f = buildSelectFixture(root);
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("a candidate that breaks a passing test loses to a smaller group; the hidden fields are never read; results are cached", async () => {
      const patches = [f.breaksLow, f.breaksLowSpaced, f.good, f.stale, f.testsOnly, f.hangs];
      const dir = runFolder(root, patches);
      const trajBefore = readFileSync(join(dir, ID, "attempt-1", `${ID}.traj.json`), "utf8");
      const opts = {
        config: config(),
        rows: [guardedRow(f)],
        reposDir: f.reposDir,
        python: "/usr/bin/python3",
      };
      const run = await selectRunFolder(dir, opts);
      const [rec] = run.records;
      expect(rec.problems).toEqual([]);
      expect(rec.selected).toBe(2);
      expect(rec.reason).toBe("largest group: 1 of 1 surviving candidates (group 2); its smallest patch");
      expect(rec.regression).toEqual({ files: ["tests/test_ops.py"], passing_at_base: 3 });
      const c = rec.candidates;
      expect(c.map((x) => [x.source, x.status, x.group])).toEqual([
        ["attempt-1", "patch", 1],
        ["attempt-2", "patch", 1],
        ["attempt-3", "patch", 2],
        ["attempt-4", "does_not_apply", undefined],
        ["attempt-5", "tests_only", undefined],
        ["attempt-6", "patch", 3],
      ]);
      // the issue names clamp and the patch changes it: test_clamp_low is a test the fix might be
      // expected to change, yet it still counts, and the candidate breaking none wins
      expect(c[0].regression).toEqual({
        tested: true,
        broke: [BROKEN],
        expected_to_change: [BROKEN],
        kept: 2,
        cached: false,
      });
      // the same text group is tested once: attempt-2 shares attempt-1's result
      expect(c[1].regression).toEqual(c[0].regression);
      expect(c[2].regression).toEqual({ tested: true, broke: [], kept: 3, cached: false });
      expect(c[3].dropped).toMatch(/^the patch does not apply at the base commit \(git apply --verbose: /);
      expect(c[4].dropped).toBe("the patch only changes tests (tests/test_ops.py)");
      expect(c[5].regression).toMatchObject({
        tested: true,
        timed_out: true,
        error: "the tests ran past 5 s of wall-clock time and were stopped",
      });
      expect(rec.steps).toEqual([
        "2 of 6 dropped (empty, tests only, or does not apply)",
        "regression tests: 1 of 4 left (none broken)",
      ]);
      expect(JSON.parse(readFileSync(join(dir, "preds.json"), "utf8"))).toEqual({
        [ID]: { instance_id: ID, model_name_or_path: "openai/m", model_patch: f.good },
      });
      expect(lines(dir)).toEqual(run.records);
      expect(readFileSync(join(dir, ID, "attempt-1", `${ID}.traj.json`), "utf8")).toBe(trajBefore);

      // Again: every test result comes from the cache, and the choice is the same.
      const again = await selectRunFolder(dir, opts);
      const r2 = again.records[0];
      expect(r2.selected).toBe(2);
      expect(r2.candidates.map((x) => x.regression?.cached)).toEqual([
        true,
        true,
        true,
        undefined,
        undefined,
        true,
      ]);
      expect(r2.seconds).toBeLessThan(rec.seconds);
    });

    it("a candidate under which the tests spin is stopped at its CPU limit and breaks every test", async () => {
      const dir = runFolder(root, [f.spins, f.good]);
      const run = await selectRunFolder(dir, {
        config: config("run.select.regression.timeout=2", "run.select.wall_timeout=60"),
        rows: [guardedRow(f)],
        reposDir: f.reposDir,
        python: "/usr/bin/python3",
      });
      const [rec] = run.records;
      const spun = rec.candidates[0].regression;
      expect([...(spun?.broke ?? [])].sort()).toEqual([
        "tests/test_ops.py::test_add",
        "tests/test_ops.py::test_clamp_inside",
        BROKEN,
      ]);
      expect(spun).toEqual({
        tested: true,
        broke: spun?.broke,
        kept: 0,
        error: "the tests used more than 2 CPU seconds and were stopped",
        timed_out: true,
        cached: false,
      });
      expect(rec.selected).toBe(1);
      // stopped by the CPU limit long before the 60 s wall-clock one
      expect(rec.seconds).toBeLessThan(50);
    });

    it("a patch that only adds a script in the repository root is dropped: two such, breaking nothing, do not outvote a fix", async () => {
      const rec = await selectOne(root, f, [f.scratch, f.scratch, f.good], {});
      expect(rec.candidates.map((c) => [c.status, c.dropped, c.group])).toEqual([
        [
          "scratch_only",
          "the patch only adds files in the repository root (reproduce_bug.py): scripts or settings beside the code, which change none of it",
          undefined,
        ],
        [
          "scratch_only",
          "the patch only adds files in the repository root (reproduce_bug.py): scripts or settings beside the code, which change none of it",
          undefined,
        ],
        ["patch", undefined, 1],
      ]);
      expect(rec.selected).toBe(2);
      expect(rec.reason).toBe("all 1 surviving candidates are equivalent (group 1); its smallest patch");
    });

    it("a test command that runs the tests in a child process (as sympy's bin/test does) is known stopped at its CPU limit too", async () => {
      // the wrapper exits with the status Python gives a child killed by SIGXCPU: 256 - 24
      const wrapped = [
        "python -c 'import subprocess, sys;",
        'sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", *sys.argv[1:]]) % 256)\'',
      ].join(" ");
      const rec = await selectOne(
        root,
        f,
        [f.spins, f.good],
        { test_cmd: wrapped },
        "run.select.regression.timeout=2",
        "run.select.wall_timeout=60",
      );
      expect(rec.regression?.passing_at_base).toBe(3);
      expect(rec.candidates[0].regression).toMatchObject({
        tested: true,
        kept: 0,
        error: "the tests used more than 2 CPU seconds and were stopped",
        timed_out: true,
      });
      expect(rec.candidates[1].regression).toMatchObject({ tested: true, broke: [], kept: 3 });
      expect(rec.selected).toBe(1);
    });

    it("no test run goes past the instance's budget: with none left, the vote decides alone", async () => {
      const dir = runFolder(root, [f.breaksLow, f.breaksLowSpaced, f.good]);
      const run = await selectRunFolder(dir, {
        config: config("run.select.budget=0.5"),
        rows: [guardedRow(f)],
        reposDir: f.reposDir,
        python: "/usr/bin/python3",
      });
      const [rec] = run.records;
      expect(rec.regression).toEqual({
        files: [],
        passing_at_base: 0,
        left_out: ["tests/test_ops.py: no share of the test budget left"],
        skipped:
          "no chosen test module runs at the base commit within its share of the budget (tests/test_ops.py: no share of the test budget left)",
      });
      expect(rec.selected).toBe(0);
      expect(rec.reason).toBe("largest group: 2 of 3 surviving candidates (group 1); its smallest patch");
    });

    it("a repository without a known test command: patches are still applied and grouped, and the record says why no test ran", async () => {
      const dir = runFolder(root, [f.breaksLow, f.stale, f.good, f.goodSpaced]);
      const row = guardedRow(f);
      delete row.test_cmd;
      const run = await selectRunFolder(dir, { config: config(), rows: [row], reposDir: f.reposDir });
      const [rec] = run.records;
      expect(rec.problems).toEqual([]);
      expect(rec.regression?.skipped).toBe(
        'instance acme__calc-1: no test command for acme/calc version "0.1". Give the row test_cmd and log_parser fields, or pass --specs FILE mapping the repo to them.',
      );
      expect(rec.candidates.map((c) => c.status)).toEqual(["patch", "does_not_apply", "patch", "patch"]);
      expect(rec.selected).toBe(2);
      expect(rec.candidates[2].ast_key).toMatch(/^[0-9a-f]{64}$/);
    });

    it("a judge that answers garbage falls back to the rule; a valid answer is followed", async () => {
      const ask = async (answer: string) => {
        const dir = runFolder(root, [f.good, f.goodOther]);
        const judge = new ScriptedModel([{ content: answer }]);
        const run = await selectRunFolder(dir, {
          config: config("run.select.judge.enabled=true"),
          rows: [guardedRow(f)],
          reposDir: f.reposDir,
          python: "/usr/bin/python3",
          judge,
        });
        judge.assertAllUsed();
        // both candidates ran the tests and kept them passing: the tie is real
        expect(run.records[0].problems).toEqual([]);
        expect(run.records[0].candidates.map((c) => c.regression?.broke)).toEqual([[], []]);
        // both candidates ran the tests and kept them passing: the tie is real
        expect(run.records[0].problems).toEqual([]);
        expect(run.records[0].candidates.map((c) => c.regression?.broke)).toEqual([[], []]);
        const prompt = judge.calls[0].messages[0].content as string;
        expect(prompt).toContain("clamp(15, 0, 10) returns 0");
        expect(prompt).toContain("+        return min(value, high)");
        return run.records[0];
      };
      const garbage = await ask("Both look fine to me!\nCHOICE: 7");
      expect(garbage.selected).toBe(0);
      expect(garbage.judge).toMatchObject({
        answer: "Both look fine to me!\nCHOICE: 7",
        problem: "expected one line `CHOICE: <number>`, got 2 lines",
      });
      expect(garbage.reason).toBe(
        "tie between groups 1, 2 (1 each): the judge's answer was not used (expected one line `CHOICE: <number>`, got 2 lines); rule: the most candidates changing its files (2), then the fewest changed lines, then the earliest candidate: group 1",
      );
      const valid = await ask("CHOICE: 2");
      expect(valid.selected).toBe(1);
      expect(valid.reason).toBe("tie between groups 1, 2 (1 each): the judge chose group 2");
    });

    it("the issue's own example: a candidate that changes what it prints outvotes a larger group that does not", async () => {
      const issue = [
        "clamp above the range gives the low bound:",
        "```python",
        "from calc.ops import clamp",
        "clamp(15, 0, 10)",
        "```",
        "prints 0; it should print 10.",
      ].join("\n");
      const select = (...layers: string[]) =>
        selectOne(root, f, [f.noop, f.noopSpaced, f.good], { problem_statement: issue }, ...layers);
      const rec = await select();
      expect(rec.problems).toEqual([]);
      expect(rec.examples).toEqual({
        count: 1,
        ran: true,
        reason: "1 of 1 example(s) run at the base commit",
      });
      expect(rec.candidates.map(examplesWithoutHash)).toEqual([
        { changed: [], stated: [], cached: false },
        { changed: [], stated: [], cached: false },
        { changed: [0], stated: [0], cached: false },
      ]);
      // the two no-op patches print what the base commit printed; the fix prints something else
      const outputs = rec.candidates.map((c) => c.examples?.outputs_sha256);
      expect(outputs[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(outputs[1]).toBe(outputs[0]);
      expect(outputs[2]).not.toBe(outputs[0]);
      // no test breaks: the examples decide
      expect(rec.candidates.map((c) => c.regression?.broke)).toEqual([[], [], []]);
      expect(rec.steps).toEqual(["issue examples: 1 of 3 left (they change what an example prints)"]);
      expect(rec.selected).toBe(2);
      // without them, the larger group of no-op patches wins the vote
      const off = await select("run.select.examples.enabled=false");
      expect(off.examples).toBeUndefined();
      expect(off.selected).toBe(0);
    });

    it("the issue's stated value: of the candidates that change what the example prints, the one printing the value the issue expects outvotes a larger group printing another", async () => {
      const issue = [
        "clamp above the range gives the low bound:",
        "```pycon",
        ">>> from calc.ops import clamp",
        ">>> clamp(15, 0, 10)",
        "0",
        "```",
        "The expected result is 10.",
      ].join("\n");
      const rec = await selectOne(root, f, [f.noClamp, f.noClampSpaced, f.good], {
        problem_statement: issue,
      });
      expect(rec.problems).toEqual([]);
      // `return value` prints 15, the fix 10: both change the example, only the fix prints what the issue expects
      expect(rec.candidates.map(examplesWithoutHash)).toEqual([
        { changed: [0], stated: [], cached: false },
        { changed: [0], stated: [], cached: false },
        { changed: [0], stated: [0], cached: false },
      ]);
      expect(rec.candidates.map((c) => c.regression?.broke)).toEqual([[], [], []]);
      expect(rec.steps).toEqual(["issue examples: 1 of 3 left (they print a value the issue states)"]);
      expect(rec.selected).toBe(2);
      expect(rec.reason).toBe("largest group: 1 of 1 surviving candidates (group 2); its smallest patch");
    });

    it("two fixes written differently that print the same for the issue's example are one group and outvote a different output", async () => {
      const issue = [
        "clamp above the range gives the wrong bound:",
        "```python",
        "from calc.ops import clamp",
        "print(clamp(15, 0, 10))",
        "```",
      ].join("\n");
      // `return value` (prints 15), `return high` and `return min(value, high)` (both print 10)
      const rec = await selectOne(root, f, [f.noClamp, f.good, f.goodOther], { problem_statement: issue });
      expect(rec.problems).toEqual([]);
      expect(rec.candidates.map(examplesWithoutHash)).toEqual([
        { changed: [0], stated: [], cached: false },
        { changed: [0], stated: [], cached: false },
        { changed: [0], stated: [], cached: false },
      ]);
      expect(rec.groups).toEqual([
        { group: 1, members: [0], representative: 0 },
        { group: 2, members: [1, 2], representative: 1 },
      ]);
      expect(rec.selected).toBe(1);
      expect(rec.reason).toBe("largest group: 2 of 3 surviving candidates (group 2); its smallest patch");
    });

    it("a reproduction test from the issue text alone, kept because it fails at the base commit, outvotes a larger group; a useless answer is left out", async () => {
      const reproduce = async (answer: string) => {
        const dir = runFolder(root, [f.noClamp, f.noClampSpaced, f.good]);
        const reproducer = new ScriptedModel([{ content: answer }]);
        const run = await selectRunFolder(dir, {
          config: config("run.select.reproduce.enabled=true"),
          rows: [guardedRow(f)],
          reposDir: f.reposDir,
          python: "/usr/bin/python3",
          reproducer,
        });
        reproducer.assertAllUsed();
        expect(reproducer.calls[0].messages[0].content).toContain(
          "clamp(15, 0, 10) returns 0; it should return 10.",
        );
        return run.records[0];
      };
      const test =
        "```python\nfrom calc.ops import clamp\n\n\ndef test_high():\n    assert clamp(15, 0, 10) == 10\n```";
      const kept = await reproduce(`Here is the test:\n${test}\n`);
      expect(kept.reproduction).toEqual({
        kept: true,
        reason: "1 test(s) fail at the base commit",
        tests: ["test_patchloop_reproduction.py::test_high"],
      });
      expect(kept.candidates.map((c) => c.reproduction?.passed)).toEqual([0, 0, 1]);
      expect(kept.selected).toBe(2);
      expect(kept.steps).toContain("reproduction tests: 1 of 3 left (passing 1)");

      const useless = await reproduce("The test would check clamp.");
      expect(useless.reproduction).toEqual({
        kept: false,
        reason: "no usable test: expected one ```python block, found 0",
      });
      // without it, the larger group wins the vote
      expect(useless.selected).toBe(0);
    });

    it("patchloop select DIR: poisoned hidden fields select the same; an older folder, a folder without attempts and a corrupt attempt say so", async () => {
      const poisoned = selectRow(f, {
        patch: f.breaksLow,
        FAIL_TO_PASS: JSON.stringify([BROKEN]),
        PASS_TO_PASS: JSON.stringify([]),
        test_patch: f.testsOnly,
      });
      const dataset = join(root, "poisoned.json");
      writeFileSync(dataset, JSON.stringify([poisoned]));
      const dir = runFolder(root, [f.breaksLow, f.breaksLowSpaced, f.good], dataset);
      writeFileSync(join(dir, ID, "attempt-2", `${ID}.traj.json`), "{ not json");
      const io = { out: [] as string[], err: [] as string[] };
      const capture = { out: (t: string) => io.out.push(t), err: (t: string) => io.err.push(t) };
      const flags = (o: Partial<SelectFlags> = {}): SelectFlags => ({
        workers: "1",
        environment: "local",
        reposDir: f.reposDir,
        python: "/usr/bin/python3",
        config: ["run.select.regression.timeout=5"],
        ...o,
      });
      expect(await runSelect(dir, flags(), capture)).toBe(0);
      const [rec] = lines(dir);
      expect(rec.selected).toBe(1);
      expect(rec.candidates.map((c) => c.source)).toEqual(["attempt-1", "attempt-3"]);
      expect(rec.problems).toHaveLength(1);
      expect(rec.problems[0]).toMatch(
        /^attempt-2: .*attempt-2\/acme__calc-1\.traj\.json is not valid JSON \(.+\); left out$/,
      );
      expect(rec.candidates[0].regression?.broke).toEqual([BROKEN]);
      expect(io.out.join("")).toBe(
        `selected a patch for 1 of 1 instances\n${join(dir, "preds.json")}\n${join(dir, "selection.jsonl")}\n`,
      );

      // A folder of an older patchloop: no run.json, one patch in preds.json, no attempts.
      const old = join(root, "old-run");
      mkdirSync(old);
      writeFileSync(
        join(old, "preds.json"),
        JSON.stringify({ [ID]: { instance_id: ID, model_name_or_path: "m", model_patch: f.good } }),
      );
      io.err.length = 0;
      expect(await runSelect(old, flags(), capture)).toBe(2);
      expect(io.err.join("")).toBe(
        `error: ${old} has no run.json naming its dataset (a folder from an older patchloop, or not a batch run folder); pass --dataset NAME|PATH\n`,
      );
      expect(await runSelect(old, flags({ dataset }), capture)).toBe(0);
      const [single] = lines(old);
      expect(single).toMatchObject({
        selected: 0,
        reason: "single candidate",
        candidates: [{ source: "preds.json", status: "patch" }],
      });
      expect(JSON.parse(readFileSync(join(old, "preds.json"), "utf8"))[ID].model_patch).toBe(f.good);

      // Prediction files, each one attempt.
      const a = join(root, "a.jsonl");
      const b = join(root, "b.json");
      const c = join(root, "c.jsonl");
      writeFileSync(
        a,
        `${JSON.stringify({ instance_id: ID, model_name_or_path: "sys-a", model_patch: f.breaksLow })}\n`,
      );
      writeFileSync(
        b,
        JSON.stringify({ [ID]: { model_name_or_path: "sys-b", model_patch: f.breaksLowSpaced } }),
      );
      writeFileSync(
        c,
        `${JSON.stringify({ instance_id: ID, model_name_or_path: "sys-c", model_patch: f.good })}\n`,
      );
      const out = join(root, "picked");
      expect(
        await runSelect(undefined, flags({ predictions: [a, b, c], output: out, dataset }), capture),
      ).toBe(0);
      const [p] = lines(out);
      expect(p.candidates.map((x) => [x.source, x.model_name])).toEqual([
        [a, "sys-a"],
        [b, "sys-b"],
        [c, "sys-c"],
      ]);
      expect(p.selected).toBe(2);
      expect(JSON.parse(readFileSync(join(out, "preds.json"), "utf8"))[ID]).toEqual({
        instance_id: ID,
        model_name_or_path: "sys-c",
        model_patch: f.good,
      });

      io.err.length = 0;
      expect(await runSelect(undefined, flags({ predictions: [a] }), capture)).toBe(2);
      expect(io.err.join("")).toBe(
        "error: --predictions needs -o OUT (where preds.json and selection.jsonl go)\n",
      );
    });
  },
);
