import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { adaptRowScript, TEST_PATCH_DELIMITER } from "../../src/grading/eval-script.js";
import { getEvalTestsReport, recordedExitCode, statusMapFromLog } from "../../src/grading/grading.js";
import { classifyInfraFailure } from "../../src/grading/infra-failure.js";
import { gradeTestOutput } from "../../src/grading/instance-report.js";
import { parseTestLog } from "../../src/grading/parsers/index.js";
import { isV5Row, resolveTestSpec } from "../../src/grading/test-spec.js";
import { buildCalcFixture, type CalcFixture, calcRow, newFileDiff } from "../support/calc-fixture.js";
import { havePytest } from "../support/pytest-skips.js";

const F2P = ["tests/test_clamp.py::test_clamp_high"];
const P2P = [
  "tests/test_ops.py::test_add",
  "tests/test_ops.py::test_clamp_low",
  "tests/test_ops.py::test_add_negative",
];

/** A v5 row's eval_script, laid out as the harness's images expect (conda, /testbed). */
function v5Script(f: CalcFixture, testCommand: string): string {
  const files = "README.md tests/test_ops.py";
  return [
    "#!/bin/bash",
    "set -uxo pipefail",
    "source /opt/miniconda3/bin/activate",
    "conda activate testbed",
    "cd /testbed",
    `git checkout ${f.baseCommit} ${files}`,
    `git apply -v - <<'${TEST_PATCH_DELIMITER}'\n${f.testPatch}\n${TEST_PATCH_DELIMITER}`,
    ": '>>>>> Start Test Output'",
    testCommand,
    ": '>>>>> End Test Output'",
    `git checkout ${f.baseCommit} ${files}`,
    "",
  ].join("\n");
}

/** A v5 row: its own eval_script, log_parser, eval_type and image; the test lists as JSON lists. */
function v5Row(f: CalcFixture, n: number, extra: Partial<SwebenchInstance> = {}): SwebenchInstance {
  const row = calcRow(f, n, {
    eval_script: v5Script(
      f,
      "python -m pytest -rA -p no:cacheprovider tests/test_clamp.py tests/test_ops.py",
    ),
    log_parser: "pytest",
    eval_type: "pass_and_fail",
    image: "registry.example.invalid/calc:v5",
    ...extra,
  });
  return { ...row, FAIL_TO_PASS: F2P as unknown as string, PASS_TO_PASS: P2P as unknown as string };
}

/** A conftest.py a hostile patch adds: no test runs, fake PASSED lines for all of them (pytest exits 5). */
const FAKE_PASSES = `def pytest_collection_modifyitems(session, config, items):
    items[:] = []


def pytest_terminal_summary(terminalreporter):
    for name in ${JSON.stringify([...F2P, ...P2P])}:
        terminalreporter.write_line("PASSED " + name)
`;

const OUT_OF_MEMORY = `def pytest_collection_modifyitems(session, config, items):
    items[:] = []


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("Cannot allocate memory")
`;

function addFile(path: string, text: string): string {
  return newFileDiff(
    path,
    text.split("\n").filter((l, i, all) => i < all.length - 1 || l !== ""),
  );
}

describe.skipIf(!havePytest())("harness v5 rows graded by their own eval_script (local worktrees)", () => {
  let f: CalcFixture;
  let root: string;
  let dataset: string;
  const patches: Record<string, string> = {};
  const run = async (runId: string, over: Partial<EvalFlags> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const preds = join(root, `${runId}.json`);
    writeFileSync(
      preds,
      JSON.stringify(
        Object.entries(patches).map(([id, p]) => ({
          instance_id: id,
          model_name_or_path: "m",
          model_patch: p,
        })),
      ),
    );
    const code = await runEval(
      {
        predictions: preds,
        dataset,
        runId,
        workers: "2",
        environment: "local",
        reposDir: f.reposDir,
        timeout: "60",
        output: join(root, "out"),
        config: [],
        python: "/usr/bin/python3",
        envCheckCache: join(root, "env-checks"),
        ...over,
      },
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    const summary = JSON.parse(readFileSync(join(root, "out", runId, `m.${runId}.json`), "utf8"));
    return { code, out: out.join(""), err: err.join(""), summary };
  };
  const report = (runId: string, n: number) =>
    JSON.parse(readFileSync(join(root, "out", runId, `acme__calc-${n}`, "report.json"), "utf8"))[
      `acme__calc-${n}`
    ];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-eval-v5-"));
    f = buildCalcFixture(root);
    dataset = join(root, "rows.jsonl");
    writeFileSync(dataset, `${[1, 2, 3, 4, 5].map((n) => JSON.stringify(v5Row(f, n))).join("\n")}\n`);
    patches["acme__calc-1"] = f.goldPatch;
    patches["acme__calc-2"] = `${f.goldPatch}${addFile("tests/conftest.py", FAKE_PASSES)}`;
    patches["acme__calc-3"] = addFile("tests/conftest.py", "import os\n\nos._exit(0)\n");
    // Runs no test and says the machine ran out of memory (as a killed runner would).
    patches["acme__calc-4"] = addFile("tests/conftest.py", OUT_OF_MEMORY);
    // The fix imports a module that is not there: the test fails with ModuleNotFoundError.
    patches["acme__calc-5"] = f.goldPatch
      .replace("+        return high", "+        import calc_helpers_gone\n+        return high")
      .replace(
        /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/m,
        (_m, a, b, c, d) => `@@ -${a},${b} +${c},${Number(d) + 1} @@`,
      );
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("turns on v5 rules by itself, runs the row's script (made ready for the host), records the exit code", async () => {
    const r = await run("auto");
    expect(r.err).toContain(
      "harness 5 rules: 5 of the rows carry v5 fields (eval_script, eval_type); --harness-version 4.1 to grade them by 4.1's",
    );
    expect(r.summary.patchloop.harness_version).toBe("5");
    expect(r.summary.resolved_ids).toEqual(["acme__calc-1"]);
    const gold = report("auto", 1);
    expect(gold).toMatchObject({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
      infra_failure: false,
      test_exit_code: 0,
    });
    expect(Object.keys(gold).slice(0, 6)).toEqual([
      "patch_is_None",
      "patch_exists",
      "patch_successfully_applied",
      "resolved",
      "infra_failure",
      "tests_status",
    ]);
    const tree = gold.environment.python.work_tree as string;
    const evalSh = readFileSync(join(root, "out", "auto", "acme__calc-1", "eval.sh"), "utf8");
    expect(evalSh).not.toContain("conda activate");
    expect(evalSh).not.toContain("/testbed");
    expect(evalSh).toContain(`\ncd ${tree}\n`);
    expect(evalSh).toContain(
      "\npython -m pytest -rA -p no:cacheprovider tests/test_clamp.py tests/test_ops.py\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\n" +
        'echo ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"\n',
    );
    expect(readFileSync(join(root, "out", "auto", "acme__calc-1", "test_output.txt"), "utf8")).toContain(
      ">>>>> Test Exit Code: 0",
    );
  }, 120_000);

  it("a non-zero exit with no failing test in the log is not graded (fake PASSED lines); 4.1 would have resolved it", async () => {
    const v5 = (await run("auto")).summary;
    // Not graded: no test results is its own outcome, apart from unresolved.
    expect(v5.unresolved_ids).not.toContain("acme__calc-2");
    expect(v5.error_ids).toContain("acme__calc-2");
    expect(v5.patchloop.no_results_ids).toContain("acme__calc-2");
    expect(v5.patchloop.errors["acme__calc-2"]).toBe(
      "the tests exited with 5 but no test failed (the log does not describe the run)",
    );
    expect(report("auto", 2)).toMatchObject({
      patch_successfully_applied: false,
      resolved: false,
      test_exit_code: 5,
    });
    const old = await run("as-4.1", { harnessVersion: "4.1" });
    expect(old.err).toContain(
      "WARNING: --harness-version 4.1 on 5 rows with v5 fields: their own eval_script runs, graded by 4.1's rules",
    );
    expect(old.summary.resolved_ids).toEqual(["acme__calc-1", "acme__calc-2"]);
  }, 120_000);

  it("a run with no results and no sign that a suite ran is rejected", async () => {
    const s = (await run("auto")).summary;
    expect(s.patchloop.no_results_ids).toContain("acme__calc-3");
    expect(s.patchloop.errors["acme__calc-3"]).toBe("no test results and no sign that a test suite ran");
    expect(report("auto", 3)).toMatchObject({
      patch_successfully_applied: false,
      resolved: false,
      test_exit_code: 0,
    });
  }, 120_000);

  it("labels infrastructure failures: certain (environment) and ambiguous ones, in report.json and the summary", async () => {
    const r = await run("auto");
    const s = r.summary;
    // The console line and the printed report show the same labels, apart from unresolved.
    expect(r.err).toMatch(
      /\] acme__calc-4: no test results \(infrastructure label: out_of_memory, environment\)\n/,
    );
    expect(r.err).toMatch(
      /\] acme__calc-5: RESOLVED_NO \(infrastructure label: missing_module, ambiguous\)\n/,
    );
    expect(r.out).toContain(
      "v5 infrastructure labels: environment 1, ambiguous 2 (advisory: they change no grade or count)",
    );
    expect(r.out).toContain(
      "\nInfrastructure failures by v5's labels, environment to blame (advisory) (1):\n  acme__calc-4: out_of_memory\n",
    );
    expect(r.out).toContain(
      "\nInfrastructure failures by v5's labels, the environment or the patch (advisory) (2):\n  acme__calc-2: no_tests_collected\n  acme__calc-5: missing_module\n",
    );
    expect(report("auto", 4)).toMatchObject({
      resolved: false,
      infra_failure: true,
      infra_failure_reason: "out_of_memory",
    });
    expect(s.infra_failure_ids).toEqual(["acme__calc-4"]);
    expect(s.ambiguous_failure_ids).toEqual(["acme__calc-2", "acme__calc-5"]);
    expect(s.failure_reasons).toEqual({
      "acme__calc-2": "no_tests_collected",
      "acme__calc-4": "out_of_memory",
      "acme__calc-5": "missing_module",
    });
    expect(s.infra_failure_instances).toBe(1);
    expect(s.ambiguous_failure_instances).toBe(2);
    // The labels are advisory: a graded run keeps its grade (5 is unresolved); runs without
    // test results are not graded, labelled or not (2, 3, 4), and never unresolved.
    expect(s.unresolved_ids).toEqual(["acme__calc-5"]);
    expect(s.patchloop.no_results_ids).toEqual(["acme__calc-2", "acme__calc-3", "acme__calc-4"]);
    expect(report("auto", 5).tests_status.FAIL_TO_PASS.failure).toEqual(F2P);
  }, 120_000);
});

describe("v5 pieces", () => {
  const f = { baseCommit: "a".repeat(40), testPatch: "diff --git a/t.py b/t.py\n" } as CalcFixture;
  it("adaptRowScript: exit code recorded once; on the host /testbed and conda give way to the declared environment", () => {
    const script = v5Script(f, "pytest -rA t.py");
    const container = adaptRowScript(script, { repoDir: "/testbed", harness: "5" });
    expect(container).toContain("conda activate testbed\ncd /testbed\n");
    expect(container.match(/SWEBENCH_TEST_EXIT_CODE=\$\?/g)).toHaveLength(1);
    expect(adaptRowScript(container, { repoDir: "/testbed", harness: "5" })).toBe(container);
    expect(adaptRowScript(script, { repoDir: "/testbed", harness: "4.1" })).not.toContain(
      "SWEBENCH_TEST_EXIT_CODE",
    );
    const host = adaptRowScript(script, {
      repoDir: "/work/tree",
      environment: ["export PYTHONPATH='/work/tree'"],
      setup: ["touch marker"],
      harness: "5",
    });
    expect(host.split("\n").slice(0, 6)).toEqual([
      "#!/bin/bash",
      "set -uxo pipefail",
      "export PYTHONPATH='/work/tree'",
      "cd /work/tree",
      "touch marker",
      `git checkout ${"a".repeat(40)} README.md tests/test_ops.py`,
    ]);
  });

  it("a v5 row needs no test_cmd; a bad eval_type or an empty eval_script is that row's error", () => {
    const row = { ...v5Row(f as CalcFixture, 1), test_patch: "" } as SwebenchInstance;
    expect(isV5Row(row)).toBe(true);
    const spec = resolveTestSpec(row);
    expect(spec).toMatchObject({
      evalType: "pass_and_fail",
      logParser: "pytest",
      failToPass: F2P,
      testCommand: "",
    });
    expect(() => resolveTestSpec({ ...row, eval_type: "fail_some" })).toThrow(
      'instance acme__calc-1: eval_type must be "pass_and_fail" or "fail_only", got "fail_some"',
    );
    expect(() => resolveTestSpec({ ...row, eval_script: "  " })).toThrow(
      "instance acme__calc-1: eval_script must be a non-empty string (a bash script)",
    );
  });

  it("fail_only: only a test present and FAILED fails", () => {
    const map = new Map([
      ["a", "FAILED"],
      ["b", "ERROR"],
      ["c", "SKIPPED"],
    ]);
    expect(getEvalTestsReport(map, ["a", "b", "x"], ["c", "y"], "5", "fail_only")).toMatchObject({
      FAIL_TO_PASS: { success: ["b", "x"], failure: ["a"] },
      PASS_TO_PASS: { success: ["c", "y"], failure: [] },
    });
  });

  it("the exit code is read after the end marker, so a test cannot fake it", () => {
    const log =
      "+ : '>>>>> Start Test Output'\n>>>>> Test Exit Code: 0\nPASSED t::a\n+ SWEBENCH_TEST_EXIT_CODE=1\n" +
      "+ : '>>>>> End Test Output'\n+ echo '>>>>> Test Exit Code: 1'\n>>>>> Test Exit Code: 1\n";
    expect(recordedExitCode(log)).toBe(1);
    expect(statusMapFromLog(log, (t) => parseTestLog("pytest", t), "5")).toMatchObject({
      found: false,
      exitCode: 1,
    });
  });

  it("an empty result map with a sign the suite ran is graded; every count must be non-zero", () => {
    const spec = resolveTestSpec(v5Row(f as CalcFixture, 1));
    const wrap = (body: string) => `+ : '>>>>> Start Test Output'\n${body}\n+ : '>>>>> End Test Output'\n`;
    expect(gradeTestOutput("i", wrap("Executed 3 of 3 SUCCESS"), spec, "5")).toMatchObject({
      resolution: "RESOLVED_NO",
    });
    expect(gradeTestOutput("i", wrap("Executed 0 of 0"), spec, "5")).toMatchObject({
      notFoundReason: "no test results and no sign that a test suite ran",
    });
  });

  it("classifies infrastructure failures in the harness's order", () => {
    expect(classifyInfraFailure("Killed\n")).toEqual({ reason: "out_of_memory", tier: "environment" });
    expect(classifyInfraFailure("ModuleNotFoundError: x\nCould not resolve host: a")).toEqual({
      reason: "network_unreachable",
      tier: "environment",
    });
    expect(classifyInfraFailure("collected 0 items")).toEqual({
      reason: "no_tests_collected",
      tier: "ambiguous",
    });
    expect(classifyInfraFailure("all fine")).toBeUndefined();
  });
});
