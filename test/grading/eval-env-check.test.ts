import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import type { EnvironmentProvider } from "../../src/grading/eval-environment.js";
import { evaluatePredictions } from "../../src/grading/evaluate.js";
import { loadSpecOverrides } from "../../src/grading/test-spec.js";
import { localGrading } from "../support/local-grading.js";
import { buildShadeFixture, installDep, type ShadeFixture, shadeRow } from "../support/shade-fixture.js";

function havePytest(): boolean {
  try {
    execFileSync("/usr/bin/python3", ["-m", "pytest", "--version"], { stdio: "ignore" });
    execFileSync("/usr/bin/python3", ["-c", "import venv"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!havePytest())("the environment check (local worktrees, venvs of Debian's python3)", () => {
  let f: ShadeFixture;
  let root: string;
  let dataset: string;
  const specFile = (name: string, local: Record<string, unknown>) => {
    const path = join(root, `${name}.yaml`);
    writeFileSync(
      path,
      JSON.stringify({ "acme/shade": { log_parser: "pytest", versions: { "*": { local } } } }),
    );
    return path;
  };
  const preds = (name: string, patch: string) => {
    const path = join(root, `${name}.json`);
    writeFileSync(
      path,
      JSON.stringify([{ instance_id: "acme__shade-1", model_name_or_path: name, model_patch: patch }]),
    );
    return path;
  };
  const grade = async (over: Partial<EvalFlags>) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runEval(
      {
        predictions: "",
        dataset,
        runId: "r",
        workers: "1",
        environment: "local",
        reposDir: f.reposDir,
        timeout: "60",
        output: join(root, "out"),
        config: [],
        envCheckCache: join(root, "env-checks"),
        ...over,
      },
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    return { code, out: out.join(""), err: err.join("") };
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-env-check-"));
    f = buildShadeFixture(root);
    dataset = join(root, "rows.jsonl");
    writeFileSync(dataset, `${JSON.stringify(shadeRow(f))}\n`);
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a package installed on the host shadows the work tree: a no-op patch is environment_mismatch, never resolved", async () => {
    const r = await grade({
      predictions: preds("noop", f.noopPatch),
      runId: "shadow",
      python: join(f.venvs.shadow, "bin", "python"),
    });
    expect(r.code).toBe(1);
    const summary = JSON.parse(readFileSync(join(root, "out", "shadow", "noop.shadow.json"), "utf8"));
    expect(summary.resolved_ids).toEqual([]);
    expect(summary.unresolved_ids).toEqual([]);
    expect(summary.error_ids).toEqual(["acme__shade-1"]);
    expect(summary.patchloop.environment_mismatch_ids).toEqual(["acme__shade-1"]);
    expect(summary.patchloop.env_check).toEqual({ enabled: true, checked: 1, cached: 0, mismatches: 1 });
    const shadowFile = join(f.site.shadow, "shade", "__init__.py");
    expect(summary.patchloop.errors["acme__shade-1"]).toBe(
      `shade is imported from ${shadowFile}, outside the work tree: the tests would grade that copy, not the patched code; ` +
        "1 of 1 FAIL_TO_PASS tests pass without the patch: tests/test_clamp.py::test_clamp_high",
    );
    expect(summary.patchloop.ran_with["acme__shade-1"]).toMatch(
      new RegExp(`^python ${f.venvs.shadow}/bin/python 3\\.\\d+\\.\\d+, PYTHONPATH <work tree>$`),
    );
    // Not graded: no report.json; the check's verdict, log and interpreter beside it.
    const dir = join(root, "out", "shadow", "acme__shade-1");
    expect(existsSync(join(dir, "report.json"))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([
      "env_check.json",
      "env_check_output.txt",
      "patch.diff",
      "run_instance.log",
    ]);
    const check = JSON.parse(readFileSync(join(dir, "env_check.json"), "utf8"));
    expect(check).toMatchObject({
      status: "mismatch",
      fail_to_pass_passing: ["tests/test_clamp.py::test_clamp_high"],
      pass_to_pass_failing: [],
      cached: false,
    });
    expect(check.environment.python.package).toEqual({
      name: "shade",
      file: shadowFile,
      inside_work_tree: false,
    });
    expect(readFileSync(join(dir, "env_check_output.txt"), "utf8")).toContain(
      "PASSED tests/test_clamp.py::test_clamp_high",
    );
    expect(r.out).toContain("Resolved 0/1 (0.0%) of the whole dataset");
    expect(r.out).toContain(
      "Environment mismatch: not graded, not counted as unresolved; the tests misbehave here without any patch (1):\n  acme__shade-1: shade is imported from",
    );
    expect(r.out).toContain(
      "How to fix:\n- The tests imported the repository's package from outside the work tree: put the work tree's code first",
    );
  }, 60_000);

  it("--no-check-env grades the same no-op patch RESOLVED_FULL, and says loudly what it skipped", async () => {
    const r = await grade({
      predictions: preds("noop", f.noopPatch),
      runId: "shadow-unchecked",
      python: join(f.venvs.shadow, "bin", "python"),
      checkEnv: false,
    });
    expect(r.code).toBe(0);
    expect(r.err).toContain("WARNING: --no-check-env: the environment is not checked before grading");
    expect(r.out).toContain(
      "environment check: OFF (--no-check-env): nothing tested that this environment grades like the harness's",
    );
    expect(r.out).toContain(
      `Warnings:\n  acme__shade-1: shade is imported from ${join(f.site.shadow, "shade", "__init__.py")}, outside the work tree (environment check off)`,
    );
    const summary = JSON.parse(
      readFileSync(join(root, "out", "shadow-unchecked", "noop.shadow-unchecked.json"), "utf8"),
    );
    expect(summary.resolved_ids).toEqual(["acme__shade-1"]);
  }, 60_000);

  it("most PASS_TO_PASS tests failing before the patch (a newer dependency) is environment_mismatch", async () => {
    const r = await grade({
      predictions: preds("gold", f.goldPatch),
      runId: "newdep",
      specs: specFile("newdep", { venv: f.venvs.newDep, pythonpath: ["lib"] }),
    });
    expect(r.code).toBe(1);
    const summary = JSON.parse(readFileSync(join(root, "out", "newdep", "gold.newdep.json"), "utf8"));
    expect(summary.patchloop.environment_mismatch_ids).toEqual(["acme__shade-1"]);
    expect(summary.patchloop.errors["acme__shade-1"]).toBe(
      "2 of 3 PASS_TO_PASS tests fail without the patch: tests/test_ops.py::test_area, tests/test_ops.py::test_area_square",
    );
    expect(r.out).toContain(
      "- Most tests that should pass fail before any patch: the installed packages differ",
    );
    expect(r.out).toContain(`    ran with python ${f.venvs.newDep}/bin/python `);
  }, 60_000);

  it("PASS_TO_PASS tests that never ran (a test module fails to import) are said to not have run, not to fail", async () => {
    // A venv without the dependency: pytest cannot collect either test module, so no test runs.
    const venv = join(root, "venv-nodep");
    execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", "--system-site-packages", venv]);
    const r = await grade({
      predictions: preds("gold", f.goldPatch),
      runId: "nodep",
      specs: specFile("nodep", { venv, pythonpath: ["lib"] }),
    });
    expect(r.code).toBe(1);
    const summary = JSON.parse(readFileSync(join(root, "out", "nodep", "gold.nodep.json"), "utf8"));
    expect(summary.patchloop.environment_mismatch_ids).toEqual(["acme__shade-1"]);
    expect(summary.patchloop.errors["acme__shade-1"]).toBe(
      "3 of 3 PASS_TO_PASS tests did not run without the patch (no result in the test log: never run, not failed): " +
        "tests/test_ops.py::test_area, tests/test_ops.py::test_clamp_low, tests/test_ops.py::test_area_square; " +
        "usually a collection error or a test module that fails to import, a test id the log parser names differently, " +
        "or a test command that does not select them; env_check_output.txt shows which",
    );
    const dir = join(root, "out", "nodep", "acme__shade-1");
    expect(JSON.parse(readFileSync(join(dir, "env_check.json"), "utf8"))).toMatchObject({
      status: "mismatch",
      pass_to_pass_failing: [],
      pass_to_pass_not_run: [
        "tests/test_ops.py::test_area",
        "tests/test_ops.py::test_clamp_low",
        "tests/test_ops.py::test_area_square",
      ],
    });
    expect(readFileSync(join(dir, "env_check_output.txt"), "utf8")).toContain(
      "ModuleNotFoundError: No module named 'shadedep'",
    );
    expect(r.out).toContain(
      "How to fix:\n- Tests that should pass never ran (no result in the log; nothing says they fail)",
    );
    expect(r.out).not.toContain("the installed packages differ");
  }, 60_000);

  it("the gold patch in the right environment is RESOLVED_FULL, a no-op RESOLVED_NO; report.json and eval.sh name the Python", async () => {
    const specs = specFile("good", { venv: f.venvs.good, pythonpath: ["lib"] });
    const gold = await grade({ predictions: preds("gold", f.goldPatch), runId: "good", specs });
    expect(gold.code).toBe(0);
    expect(gold.out).toContain("Resolved 1/1 (100.0%) of the whole dataset");
    expect(gold.out).toContain(
      "environment check: on (1 checked, 0 from the cache, 0 mismatched); harness 4.1 rules",
    );
    const dir = join(root, "out", "good", "acme__shade-1");
    const entry = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"))["acme__shade-1"];
    expect(entry.resolved).toBe(true);
    const tree = entry.environment.python.work_tree as string;
    const interpreter = `${f.venvs.good}/bin/python`;
    expect(entry.environment).toEqual({
      kind: "local",
      python: {
        executable: interpreter,
        version: expect.stringMatching(/^3\.\d+\.\d+$/),
        declared: { interpreter, PYTHONPATH: `${tree}/lib`, venv: f.venvs.good },
        work_tree: tree,
        package: { name: "shade", file: `${tree}/lib/shade/__init__.py`, inside_work_tree: true },
      },
      check: { status: "ok", cached: false, problems: [] },
    });
    const evalSh = readFileSync(join(dir, "eval.sh"), "utf8");
    expect(evalSh).toContain(
      `# Python of these tests, declared by patchloop (report.json "environment" records what ran): ${interpreter} (Python ${entry.environment.python.version}), PYTHONPATH ${tree}/lib\n`,
    );
    expect(evalSh).toContain(`export PYTHONPATH='${tree}/lib'\n`);
    expect(evalSh).toContain(`export VIRTUAL_ENV='${f.venvs.good}'\n`);

    const noop = await grade({ predictions: preds("noop", f.noopPatch), runId: "good-noop", specs });
    expect(noop.code).toBe(0);
    const s = JSON.parse(readFileSync(join(root, "out", "good-noop", "noop.good-noop.json"), "utf8"));
    expect(s.unresolved_ids).toEqual(["acme__shade-1"]);
    expect(s.patchloop.resolutions).toEqual({ "acme__shade-1": "RESOLVED_NO" });
    // The check of (instance, this environment) was cached by the gold run: not repeated.
    expect(s.patchloop.env_check).toEqual({ enabled: true, checked: 1, cached: 1, mismatches: 0 });
  }, 60_000);

  it("caches the check per instance and environment fingerprint: a re-grade opens one environment, new packages run it again", async () => {
    const cache = join(root, "cache-fp");
    let opened = 0;
    const inner = localGrading(f.reposDir);
    const provider: EnvironmentProvider = (row) => {
      opened++;
      return inner(row);
    };
    const specs = await loadSpecOverrides(specFile("fp", { venv: f.venvs.good, pythonpath: ["lib"] }));
    const run = (runId: string) =>
      evaluatePredictions({
        dataset: [shadeRow(f)],
        predictions: [{ instance_id: "acme__shade-1", model_name_or_path: "m", model_patch: f.goldPatch }],
        runId,
        outputDir: join(root, "out-fp"),
        provider,
        specs,
        checkEnv: true,
        checkCacheDir: cache,
      });
    const first = await run("one");
    expect(first.results[0]).toMatchObject({ outcome: "resolved", check: { status: "ok", cached: false } });
    expect(opened).toBe(2);
    const second = await run("two");
    expect(second.results[0]).toMatchObject({ outcome: "resolved", check: { status: "ok", cached: true } });
    expect(opened).toBe(3);
    expect(readdirSync(join(cache, "acme__shade-1")).filter((n) => n.endsWith(".json"))).toHaveLength(1);
    // Another version of a dependency is another environment: the check runs again.
    installDep(f.site.good, "1.1", 1);
    const third = await run("three");
    expect(third.results[0]).toMatchObject({ outcome: "resolved", check: { status: "ok", cached: false } });
    expect(opened).toBe(5);
    expect(readdirSync(join(cache, "acme__shade-1")).filter((n) => n.endsWith(".json"))).toHaveLength(2);
    installDep(f.site.good, "1.0", 1);
  }, 90_000);

  it("a missing interpreter is that instance's error, with the fix", async () => {
    const r = await grade({
      predictions: preds("gold", f.goldPatch),
      runId: "nopython",
      python: join(root, "no-such-python"),
    });
    expect(r.code).toBe(1);
    const s = JSON.parse(readFileSync(join(root, "out", "nopython", "gold.nopython.json"), "utf8"));
    expect(s.patchloop.infrastructure_error_ids).toEqual(["acme__shade-1"]);
    expect(s.patchloop.errors["acme__shade-1"]).toBe(
      `no Python interpreter ${JSON.stringify(join(root, "no-such-python"))} in the environment (command -v found nothing); ` +
        "pass --python /path/to/python3 (e.g. /usr/bin/python3 with Debian's python3-pytest), or set local.python in --specs",
    );
  }, 60_000);
});
