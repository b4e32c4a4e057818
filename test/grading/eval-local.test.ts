import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatePredictions } from "../../src/grading/evaluate.js";
import type { Prediction } from "../../src/grading/predictions.js";
import { formatRunReport } from "../../src/grading/report-text.js";
import { buildCalcFixture, type CalcFixture, calcRow } from "../support/calc-fixture.js";
import { localGrading } from "../support/local-grading.js";
import { havePytest } from "../support/pytest-skips.js";

// `python` is the interpreter eval.sh declares (--python), not whatever python is first on PATH.
const TEST_CMD = "python -m pytest -rA -p no:cacheprovider";

describe.skipIf(!havePytest())("eval end to end: local worktrees, Debian's python3 -m pytest", () => {
  let f: CalcFixture;
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-eval-local-"));
    f = buildCalcFixture(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("grades gold, empty, wrong, stale, non-diff, hanging and malformed predictions, each on its own", async () => {
    const rows = [
      calcRow(f, 1, { test_cmd: TEST_CMD, log_parser: "pytest" }),
      calcRow(f, 2, { test_cmd: TEST_CMD, log_parser: "pytest" }),
      calcRow(f, 3, { test_cmd: TEST_CMD, log_parser: "pytest" }),
      calcRow(f, 4, { test_cmd: TEST_CMD, log_parser: "pytest" }),
      calcRow(f, 5, { test_cmd: TEST_CMD, log_parser: "pytest", test_patch: f.hangTestPatch }),
      calcRow(f, 6, { test_cmd: TEST_CMD, log_parser: "pytest" }),
      calcRow(f, 7, { test_cmd: TEST_CMD, log_parser: "pytest", FAIL_TO_PASS: "[tests/test_clamp.py" }),
      calcRow(f, 8, { test_cmd: TEST_CMD, log_parser: "pytest" }),
    ];
    const pred = (n: number, model_patch: string | null): Prediction => ({
      instance_id: `acme__calc-${n}`,
      model_name_or_path: "org/model-x",
      model_patch,
    });
    const predictions = [
      pred(1, f.goldPatch),
      pred(2, ""),
      pred(3, f.wrongPatch),
      pred(4, f.stalePatch),
      pred(5, f.goldPatch),
      pred(6, "I fixed clamp by returning high."),
      pred(7, f.goldPatch),
    ];
    const out = join(root, "out");
    const seen: string[] = [];
    const run = await evaluatePredictions({
      dataset: rows,
      predictions,
      runId: "local-1",
      outputDir: out,
      provider: localGrading(f.reposDir),
      python: "/usr/bin/python3",
      workers: 3,
      timeout: 15,
      onResult: (r) => seen.push(r.instance_id),
    });
    const outcome = Object.fromEntries(run.results.map((r) => [r.instance_id, r.outcome]));
    expect(outcome).toEqual({
      "acme__calc-1": "resolved",
      "acme__calc-2": "empty_patch",
      "acme__calc-3": "unresolved",
      "acme__calc-4": "patch_apply_failed",
      "acme__calc-5": "timeout",
      "acme__calc-6": "patch_apply_failed",
      "acme__calc-7": "error",
    });
    expect(seen.sort()).toEqual(predictions.map((p) => p.instance_id).sort());
    const s = run.summary;
    expect(run.summaryPath).toBe(join(out, "local-1", "org__model-x.local-1.json"));
    expect(JSON.parse(readFileSync(run.summaryPath, "utf8"))).toEqual(s);
    expect(Object.keys(s).slice(0, 7)).toEqual([
      "total_instances",
      "submitted_instances",
      "completed_instances",
      "resolved_instances",
      "unresolved_instances",
      "empty_patch_instances",
      "error_instances",
    ]);
    expect(s).toMatchObject({
      total_instances: 8,
      submitted_instances: 7,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 4,
      resolved_ids: ["acme__calc-1"],
      unresolved_ids: ["acme__calc-3"],
      empty_patch_ids: ["acme__calc-2"],
      incomplete_ids: ["acme__calc-8"],
      error_ids: ["acme__calc-4", "acme__calc-5", "acme__calc-6", "acme__calc-7"],
      schema_version: 2,
    });
    expect(s.patchloop.patch_apply_failed_ids).toEqual(["acme__calc-4", "acme__calc-6"]);
    expect(s.patchloop.timeout_ids).toEqual(["acme__calc-5"]);
    expect(s.patchloop.infrastructure_error_ids).toEqual(["acme__calc-7"]);
    expect(s.patchloop.errors["acme__calc-7"]).toContain("FAIL_TO_PASS is not valid JSON");
    expect(s.patchloop.resolutions).toEqual({
      "acme__calc-1": "RESOLVED_FULL",
      "acme__calc-3": "RESOLVED_NO",
    });

    // The gold instance: the harness's four files and a report.json in its format.
    const gold = join(out, "local-1", "acme__calc-1");
    expect(readdirSync(gold).sort()).toEqual([
      "eval.sh",
      "patch.diff",
      "report.json",
      "run_instance.log",
      "test_output.txt",
    ]);
    expect(readFileSync(join(gold, "patch.diff"), "utf8")).toBe(f.goldPatch);
    const report = JSON.parse(readFileSync(join(gold, "report.json"), "utf8"));
    // Where and with what it ran: the declared interpreter, its version, PYTHONPATH (the work tree).
    const environment = report["acme__calc-1"].environment;
    delete report["acme__calc-1"].environment;
    const tree = environment.python.work_tree as string;
    expect(tree).toMatch(/\/patchloop-eval-acme__calc-1-[^/]+\/acme__calc-1-[^/]+\/repo$/);
    expect(environment).toEqual({
      kind: "local",
      python: {
        executable: "/usr/bin/python3",
        version: expect.stringMatching(/^3\.\d+\.\d+$/),
        declared: { interpreter: "/usr/bin/python3", PYTHONPATH: tree },
        work_tree: tree,
        package: { name: "calc", file: `${tree}/calc/__init__.py`, inside_work_tree: true },
      },
      check: { status: "off", cached: false, problems: [] },
    });
    expect(report).toEqual({
      "acme__calc-1": {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: true,
        tests_status: {
          FAIL_TO_PASS: { success: ["tests/test_clamp.py::test_clamp_high"], failure: [] },
          PASS_TO_PASS: {
            success: [
              "tests/test_ops.py::test_add",
              "tests/test_ops.py::test_clamp_low",
              "tests/test_ops.py::test_add_negative",
            ],
            failure: [],
          },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    const output = readFileSync(join(gold, "test_output.txt"), "utf8");
    expect(output).toContain("+ : '>>>>> Start Test Output'");
    expect(output).toContain("PASSED tests/test_clamp.py::test_clamp_high");
    expect(output).toContain(`+ ${TEST_CMD} tests/test_clamp.py tests/test_ops.py`);
    const evalSh = readFileSync(join(gold, "eval.sh"), "utf8");
    expect(evalSh.startsWith("#!/bin/bash\nset -uxo pipefail\n")).toBe(true);
    const version = environment.python.version;
    const scratch = tree.replace(/repo$/, "scratch");
    expect(evalSh.split("\n").slice(2, 8)).toEqual([
      `# Python of these tests, declared by patchloop (report.json "environment" records what ran): /usr/bin/python3 (Python ${version}), PYTHONPATH ${tree}`,
      `export PATH='${scratch}/patchloop-python-bin':"$PATH"`,
      `export PYTHONPATH='${tree}'`,
      "export PYTHONNOUSERSITE='1'",
      "unset PYTHONHOME",
      `cd ${tree}`,
    ]);
    expect(evalSh).toContain(`git checkout ${f.baseCommit} README.md tests/test_ops.py\n`);
    expect(evalSh).not.toContain("safe.directory");

    // The wrong patch: graded, F2P failing.
    const wrong = JSON.parse(readFileSync(join(out, "local-1", "acme__calc-3", "report.json"), "utf8"));
    expect(wrong["acme__calc-3"].tests_status.FAIL_TO_PASS).toEqual({
      success: [],
      failure: ["tests/test_clamp.py::test_clamp_high"],
    });
    // No report.json where the harness writes none; the timeout is in the test output.
    for (const n of [4, 5, 6, 7])
      expect(existsSync(join(out, "local-1", `acme__calc-${n}`, "report.json"))).toBe(false);
    expect(readFileSync(join(out, "local-1", "acme__calc-5", "test_output.txt"), "utf8")).toMatch(
      /\n\nTimeout error: 15 seconds exceeded\.$/,
    );
    expect(readFileSync(join(out, "local-1", "acme__calc-4", "run_instance.log"), "utf8")).toContain(
      ">>>>> Patch Apply Failed",
    );

    // Every worktree is gone again.
    expect(
      execFileSync("git", ["worktree", "list"], { cwd: f.clone, encoding: "utf8" }).trim().split("\n"),
    ).toHaveLength(1);

    const text = formatRunReport(s);
    expect(text.split("\n").slice(0, 4)).toEqual([
      "Resolved 1/8 (12.5%) of the whole dataset (8 instances)",
      "Resolved 1/7 (14.3%) of the instances with a prediction",
      "completed 2, unresolved 1, empty patches 1, errors 4 (patch did not apply 2, timed out 1, no test results 0, environment mismatch 0, infrastructure 1)",
      "environment check: OFF (not asked for): nothing tested that this environment grades like the harness's; harness 4.1 rules",
    ]);
    expect(text).toContain("repository  resolved  total    rate\nacme/calc          1      7   14.3%\n");
    expect(s.patchloop.errors["acme__calc-4"]).toMatch(
      /^the patch did not apply \(git apply --verbose: error: .*; patch --batch --fuzz=5 -p1 -i: .*\)$/,
    );
  }, 120_000);

  it("reuses existing report.json files on a re-run, as the harness does", async () => {
    const rows = [calcRow(f, 1, { test_cmd: TEST_CMD, log_parser: "pytest" })];
    const predictions = [{ instance_id: "acme__calc-1", model_name_or_path: "m", model_patch: f.goldPatch }];
    const opts = {
      dataset: rows,
      predictions,
      runId: "again",
      outputDir: join(root, "out2"),
      provider: localGrading(f.reposDir),
      python: "/usr/bin/python3",
    };
    const first = await evaluatePredictions(opts);
    expect(first.results[0].seconds).toBeGreaterThan(0);
    let calls = 0;
    const second = await evaluatePredictions({
      ...opts,
      provider: async () => {
        calls++;
        throw new Error("must not be called");
      },
    });
    expect(calls).toBe(0);
    expect(second.summary.resolved_ids).toEqual(["acme__calc-1"]);
  }, 60_000);
});
