import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { repoOf } from "../../src/inspect/charts.js";
import { RunFolder } from "../../src/inspect/run-folder.js";
import { makeRunFolder } from "./run-fixture.js";

describe("run folder overview", () => {
  const dir = makeRunFolder();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("one row per instance with exit status, evaluation, steps, tokens, cost and wall time", async () => {
    const o = await new RunFolder(dir).overview();
    expect(
      o.rows.map((r) => [
        r.id,
        r.repo,
        r.exitStatus,
        r.resolved,
        r.steps,
        r.prompt_tokens,
        r.completion_tokens,
      ]),
    ).toEqual([
      ["django__django-11099", "django/django", "Submitted", true, 3, 3234, 156],
      ["django__django-12345", "django/django", "Submitted", false, 2, 2000, 100],
      ["psf__requests-2317", "psf/requests", "Submitted", true, 2, 2000, 100],
      ["sympy__sympy-20590", "sympy/sympy", "LimitsExceeded", false, 5, 5000, 250],
    ]);
    expect(o.rows[0]).toMatchObject({
      cost: 0.25,
      wallSeconds: 42.5,
      trajectory: "django__django-11099/django__django-11099.traj.json",
      error: null,
    });
    expect(o.evalFiles).toEqual([
      "eval/openai__test-model.run1.json",
      "eval/run1/django__django-11099/report.json",
      "eval/run1/django__django-12345/report.json",
      "eval/run1/sympy__sympy-20590/report.json",
    ]);
    expect(o.runFacts).toEqual({
      run_format: "patchloop-run-1",
      state: "finished",
      started_at: "2025-01-01T00:00:00Z",
    });
    expect(o.problems).toEqual([]);
  });

  test("the run's model, config and totals cover every invocation (earlier attempts included)", async () => {
    const o = await new RunFolder(dir).overview();
    expect(o.totals).toEqual({
      model: "openai/test-model",
      configSources: ['built-in config "swebench_backticks"', "-c agent.step_limit=5"],
      config: { model: { model_name: "openai/test-model", api_key_env: null } },
      api_calls: 16,
      cost: 1.5,
      instances: 4,
    });
  });

  test("charts: resolved rate per repository, steps histogram, exit statuses", async () => {
    const { charts } = await new RunFolder(dir).overview();
    expect(charts.resolvedByRepo).toEqual([
      { label: "django/django", value: 50, caption: "1/2" },
      { label: "psf/requests", value: 100, caption: "1/1" },
      { label: "sympy/sympy", value: 0, caption: "0/1" },
    ]);
    expect(charts.stepsHistogram.map((b) => [b.label, b.value])).toEqual([
      ["2", 2],
      ["3", 1],
      ["4", 0],
      ["5", 1],
    ]);
    expect(charts.exitStatuses.map((b) => [b.label, b.value])).toEqual([
      ["Submitted", 3],
      ["LimitsExceeded", 1],
    ]);
  });

  test("evaluation details: failing FAIL_TO_PASS / PASS_TO_PASS tests per instance", async () => {
    const index = await new RunFolder(dir).evalIndex();
    expect(index.results.get("sympy__sympy-20590")).toEqual({
      resolved: false,
      outcome: null,
      detail: null,
      files: [{ label: "report", path: "eval/run1/sympy__sympy-20590/report.json" }],
      patchApplied: true,
      failToPassFailures: ["test_symbol_slots"],
      passToPassFailures: [],
      failToPassPassed: 0,
      passToPassPassed: 2,
      reportFile: "eval/run1/sympy__sympy-20590/report.json",
    });
    expect(index.results.get("django__django-12345")?.passToPassFailures).toEqual([
      "test_old_c (model.Tests)",
    ]);
    expect(index.results.get("psf__requests-2317")).toMatchObject({
      resolved: true,
      reportFile: "eval/openai__test-model.run1.json",
      files: [],
    });
    // The trajectory page links the instance's test output and eval log beside its report.
    expect(index.results.get("django__django-11099")?.files).toEqual([
      { label: "test output", path: "eval/run1/django__django-11099/test_output.txt" },
      { label: "eval log", path: "eval/run1/django__django-11099/run_instance.log" },
      { label: "report", path: "eval/run1/django__django-11099/report.json" },
    ]);
  });

  test("an environment mismatch from a patchloop summary is not graded: its reason and files, not 'unresolved'", async () => {
    const extra = makeRunFolder();
    try {
      const runDir = join(extra, "eval", "patchloop-run");
      mkdirSync(join(runDir, "pallets__flask-4992"), { recursive: true });
      for (const name of ["env_check.json", "env_check_output.txt", "run_instance.log", "patch.diff"]) {
        writeFileSync(join(runDir, "pallets__flask-4992", name), "{}");
      }
      const why =
        "flask is imported from /usr/lib/python3/dist-packages/flask/__init__.py, outside the work tree";
      writeFileSync(
        join(runDir, "m.patchloop-run.json"),
        JSON.stringify({
          resolved_ids: [],
          unresolved_ids: [],
          error_ids: ["pallets__flask-4992"],
          empty_patch_ids: [],
          patchloop: {
            environment_mismatch_ids: ["pallets__flask-4992"],
            errors: { "pallets__flask-4992": why },
          },
        }),
      );
      writeFileSync(
        join(extra, "preds.json"),
        JSON.stringify({
          "pallets__flask-4992": { instance_id: "pallets__flask-4992", model_patch: "diff" },
        }),
      );
      const folder = new RunFolder(extra);
      const o = await folder.overview();
      expect(o.rows.find((r) => r.id === "pallets__flask-4992")).toMatchObject({
        resolved: null,
        evalOutcome: "environment mismatch",
      });
      expect(o.charts.resolvedByRepo.map((b) => b.label)).not.toContain("pallets/flask");
      const r = (await folder.evalIndex()).results.get("pallets__flask-4992");
      expect(r).toMatchObject({ resolved: null, outcome: "environment mismatch", detail: why });
      expect(r?.files).toEqual([
        { label: "eval log", path: "eval/patchloop-run/pallets__flask-4992/run_instance.log" },
        { label: "environment check", path: "eval/patchloop-run/pallets__flask-4992/env_check.json" },
        {
          label: "environment check output",
          path: "eval/patchloop-run/pallets__flask-4992/env_check_output.txt",
        },
      ]);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });

  test("with no evaluation, the overview says where it looked and how to make one", async () => {
    const extra = makeRunFolder();
    try {
      rmSync(join(extra, "eval"), { recursive: true, force: true });
      const o = await new RunFolder(extra).overview();
      expect(o.evalFiles).toEqual([]);
      expect(o.evalSearch).toBe(
        `looked under ${o.name}/ for report.json files (up to 6 folders deep) and run summaries (.json files ` +
          "with a resolved_ids list, up to 3 deep); grade this run with `patchloop eval --predictions <this folder>`, " +
          "which writes them to <this folder>/eval/",
      );
      // without run.json (patchloop run, another scaffold): no eval command that cannot work
      rmSync(join(extra, "run.json"));
      expect((await new RunFolder(extra).overview()).evalSearch).toBe(
        `looked under ${o.name}/ for report.json files (up to 6 folders deep) and run summaries (.json files ` +
          "with a resolved_ids list, up to 3 deep); this folder has no run.json, so it is not a `patchloop swebench` " +
          "run: predictions of SWE-bench instances are graded with `patchloop eval --predictions <this folder> " +
          "--dataset NAME|FILE` (the rows they were made for), while a `patchloop run` folder has no dataset row " +
          "to grade its patch against",
      );
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });

  test("instances known only from preds.json / exit_statuses.yaml get rows; a broken trajectory shows its error", async () => {
    const extra = makeRunFolder();
    try {
      writeFileSync(
        join(extra, "exit_statuses.yaml"),
        "Submitted:\n- django__django-11099\nEnvironmentError:\n- flask__flask-4045\n",
      );
      mkdirSync(join(extra, "astropy__astropy-7746"));
      writeFileSync(
        join(extra, "astropy__astropy-7746", "astropy__astropy-7746.traj.json"),
        '{"trajectory_format": "patch',
      );
      const o = await new RunFolder(extra).overview();
      const byId = new Map(o.rows.map((r) => [r.id, r]));
      expect(byId.get("flask__flask-4045")).toMatchObject({
        exitStatus: "EnvironmentError",
        steps: null,
        trajectory: null,
      });
      expect(byId.get("astropy__astropy-7746")?.error).toMatch(
        /^\.\/astropy__astropy-7746\/astropy__astropy-7746\.traj\.json is not valid JSON/,
      );
      expect(o.rows).toHaveLength(6);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });

  test("a newer per-instance report wins over an older one; a broken report is listed as a problem", async () => {
    const extra = makeRunFolder();
    try {
      const newer = join(extra, "eval/run2/sympy__sympy-20590/report.json");
      mkdirSync(join(newer, ".."), { recursive: true });
      writeFileSync(newer, JSON.stringify({ "sympy__sympy-20590": { resolved: true, tests_status: {} } }));
      utimesSync(newer, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
      writeFileSync(join(extra, "eval/run2/report.json"), "{not json");
      const o = await new RunFolder(extra).overview();
      expect(o.rows.find((r) => r.id === "sympy__sympy-20590")?.resolved).toBe(true);
      expect(o.problems).toEqual([expect.stringMatching(/^eval\/run2\/report\.json: not valid JSON/)]);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });
});

test("repoOf: SWE-bench ids to owner/name", () => {
  expect(repoOf("scikit-learn__scikit-learn-13142")).toBe("scikit-learn/scikit-learn");
  expect(repoOf("pytest-dev__pytest-5227")).toBe("pytest-dev/pytest");
  expect(repoOf("my-task")).toBe("(other)");
});
