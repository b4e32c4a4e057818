import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import { loadRunFile } from "../../src/compare/load-run.js";
import type { RunSummary } from "../../src/grading/summary.js";
import { buildCalcFixture, type CalcFixture, fixtureGit } from "../support/calc-fixture.js";
import { havePytest } from "../support/pytest-skips.js";

const F2P = ["tests/test_clamp.py::test_clamp_high"];
const P2P = [
  "tests/test_ops.py::test_add",
  "tests/test_ops.py::test_clamp_low",
  "tests/test_ops.py::test_add_negative",
];
const PYTEST = "/usr/bin/python3 -m pytest -rA -p no:cacheprovider tests";

/**
 * The calc fixture moved to a src/ layout: `python3 -m pytest` from the work tree puts the work
 * tree on sys.path, not src/, so a Live row whose test command sets no Python path cannot import
 * `calc` (every test module fails to collect), as a new user's SWE-bench-Live row did.
 */
function srcLayout(f: CalcFixture) {
  fixtureGit(f.clone, "checkout", "-q", f.baseCommit);
  mkdirSync(join(f.clone, "src"));
  fixtureGit(f.clone, "mv", "calc", "src/calc");
  fixtureGit(f.clone, "commit", "-qm", "src layout");
  const base = fixtureGit(f.clone, "rev-parse", "HEAD").trim();
  const moved = (p: string) =>
    p.replaceAll(" a/calc/", " a/src/calc/").replaceAll(" b/calc/", " b/src/calc/");
  return { base, gold: moved(f.goldPatch) };
}

function liveRow(id: string, base: string, f: CalcFixture, testCmd: string) {
  return {
    repo: "acme/calc",
    instance_id: id,
    base_commit: base,
    patch: "",
    test_patch: f.testPatch,
    problem_statement: "clamp(15, 0, 10) returns 0",
    FAIL_TO_PASS: F2P,
    PASS_TO_PASS: P2P,
    rebuild_cmds: [],
    test_cmds: [testCmd],
    print_cmds: [],
    log_parser: "pytest",
  };
}

describe.skipIf(!havePytest())("one verdict per instance: SWE-bench-Live rows on the host", () => {
  let root: string;
  let f: CalcFixture;
  let dataset: string;
  let predictions: string;
  const run = async (runId: string, over: Partial<EvalFlags> = {}) => {
    const err: string[] = [];
    const out: string[] = [];
    const flags: EvalFlags = {
      predictions,
      dataset,
      split: "test",
      runId,
      workers: "1",
      environment: "local",
      reposDir: f.reposDir,
      timeout: "120",
      output: join(root, "out"),
      config: [],
      envCheckCache: join(root, "env-checks"),
      ...over,
    };
    const status = await runEval(flags, { out: (t) => out.push(t), err: (t) => err.push(t) });
    const summary = JSON.parse(
      readFileSync(join(root, "out", runId, `m.${runId}.json`), "utf8"),
    ) as RunSummary;
    const report = (id: string) => {
      const file = join(root, "out", runId, id, "report.json");
      return existsSync(file) ? JSON.parse(readFileSync(file, "utf8"))[id] : undefined;
    };
    return { status, err: err.join(""), out: out.join(""), summary, report };
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-live-verdict-"));
    f = buildCalcFixture(root);
    const { base, gold } = srcLayout(f);
    const rows = [
      // Its test command sets no Python path: the tests cannot import calc.
      liveRow("acme__calc-1", base, f, PYTEST),
      // The same tests with the package on the path: they run.
      liveRow("acme__calc-2", base, f, `PYTHONPATH=src ${PYTEST}`),
    ];
    dataset = join(root, "live.jsonl");
    writeFileSync(dataset, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    predictions = join(root, "preds.json");
    writeFileSync(
      predictions,
      JSON.stringify(
        rows.map((r) => ({ instance_id: r.instance_id, model_name_or_path: "m", model_patch: gold })),
      ),
    );
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("without the check, a run with no test results is labelled as such on the console, in the summary and in report.json", async () => {
    const r = await run("nocheck", { checkEnv: false });
    expect(r.err).toMatch(/\[\d\/2\] acme__calc-1: no test results \(/);
    expect(r.err).not.toContain("acme__calc-1: RESOLVED_FULL");
    expect(r.err).toMatch(/\[\d\/2\] acme__calc-2: RESOLVED_FULL \(/);
    expect(r.summary.resolved_ids).toEqual(["acme__calc-2"]);
    expect(r.summary.unresolved_ids).toEqual([]);
    expect(r.summary.completed_ids).toEqual(["acme__calc-2"]);
    expect(r.summary.error_ids).toEqual(["acme__calc-1"]);
    expect(r.summary.patchloop.no_results_ids).toEqual(["acme__calc-1"]);
    expect(r.summary.patchloop.resolutions).toEqual({ "acme__calc-2": "RESOLVED_FULL" });
    expect(r.summary.patchloop.errors["acme__calc-1"]).toMatch(
      /^none of the row's 4 tests is in the log the row's parser read \(\d+ other results\): the tests did not run/,
    );
    const entry = r.report("acme__calc-1");
    expect(entry).toMatchObject({ resolved: false, environment: { kind: "local", python: null } });
    expect(entry.tests_status).toBeUndefined();
    expect(entry.no_results_reason).toBe(r.summary.patchloop.errors["acme__calc-1"]);
    expect(readFileSync(join(root, "out", "nocheck", "acme__calc-1", "test_output.txt"), "utf8")).toContain(
      "ModuleNotFoundError: No module named 'calc'",
    );
    expect(r.out).toContain(
      "completed 1, unresolved 0, empty patches 0, errors 1 (patch did not apply 0, timed out 0, no test results 1, environment mismatch 0, infrastructure 0)",
    );
    expect(r.out).toContain(
      "\nNo test results: not graded, not counted as unresolved (the harness would count them unresolved) (1):\n  acme__calc-1: none of the row's 4 tests",
    );
    expect(r.out).not.toContain("\nUnresolved");
    expect(r.status).toBe(1);
    // compare reads the same verdict: an infrastructure failure, not an unresolved instance.
    const summaryPath = join(root, "out", "nocheck", "m.nocheck.json");
    const verdicts = loadRunFile(summaryPath);
    expect([...verdicts.infrastructure.keys()]).toEqual(["acme__calc-1"]);
    expect([...verdicts.unresolved]).toEqual([]);
    // Run again: the reused report.json gives the same verdict.
    const again = await run("nocheck", { checkEnv: false });
    expect(again.err).toMatch(/\[\d\/2\] acme__calc-1: no test results\n/);
    expect(again.summary.patchloop.no_results_ids).toEqual(["acme__calc-1"]);
    expect(again.summary.unresolved_ids).toEqual([]);
  }, 300_000);

  it("the environment check of docs/grading.md runs for Live rows under local: the row that cannot import is a mismatch, not graded", async () => {
    const r = await run("checked");
    expect(r.err).toMatch(/\[\d\/2\] acme__calc-1: environment mismatch \(/);
    expect(r.err).toMatch(/\[\d\/2\] acme__calc-2: RESOLVED_FULL \(/);
    expect(r.summary.patchloop.env_check).toEqual({
      enabled: true,
      checked: 2,
      cached: 0,
      mismatches: 1,
    });
    expect(r.out).toContain("environment check: on (2 checked, 0 from the cache, 1 mismatched); harness");
    expect(r.summary.patchloop.environment_mismatch_ids).toEqual(["acme__calc-1"]);
    expect(r.summary.resolved_ids).toEqual(["acme__calc-2"]);
    expect(r.summary.unresolved_ids).toEqual([]);
    expect(r.summary.patchloop.errors["acme__calc-1"]).toMatch(
      /^the tests gave no results without the patch \(none of the row's 4 tests is in the log/,
    );
    expect(r.report("acme__calc-1")).toBeUndefined();
    expect(r.report("acme__calc-2")).toMatchObject({
      resolved: true,
      environment: { kind: "local", check: { status: "ok", cached: false, problems: [] } },
    });
    const check = JSON.parse(
      readFileSync(join(root, "out", "checked", "acme__calc-2", "env_check.json"), "utf8"),
    );
    expect(check).toMatchObject({
      status: "ok",
      fail_to_pass_passing: [],
      pass_to_pass_failing: [],
      pass_to_pass_not_run: [],
    });
    // Without the model's patch the F2P test failed: the check ran the tests, not the fix.
    expect(
      readFileSync(join(root, "out", "checked", "acme__calc-2", "env_check_output.txt"), "utf8"),
    ).toContain("FAILED tests/test_clamp.py::test_clamp_high");
    expect(r.out).toContain(
      "How to fix:\n- A SWE-bench-Live row's tests gave no results: its own commands run as the row writes them",
    );
    expect(r.out).not.toContain("pass --python");
    expect(r.status).toBe(1);
  }, 300_000);
});
