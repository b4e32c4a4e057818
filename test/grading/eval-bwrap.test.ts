import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runEval } from "../../src/cli/eval.js";
import { buildCalcFixture, calcRow } from "../support/calc-fixture.js";
import { describeWithEngine } from "../support/engines.js";

describeWithEngine("bwrap", "eval in a bubblewrap sandbox around a copy of --repos-dir", () => {
  it("grades gold and wrong patches with the config's variables, and leaves no copy behind", async () => {
    const root = mkdtempSync(join(tmpdir(), "patchloop-eval-bwrap-"));
    const f = buildCalcFixture(root);
    const rows = [1, 2].map((n) =>
      calcRow(f, n, { test_cmd: "python -m pytest -rA -p no:cacheprovider", log_parser: "pytest" }),
    );
    const dataset = join(root, "rows.jsonl");
    writeFileSync(dataset, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const preds = join(root, "preds.json");
    writeFileSync(
      preds,
      JSON.stringify([
        { instance_id: "acme__calc-1", model_name_or_path: "m", model_patch: f.goldPatch },
        { instance_id: "acme__calc-2", model_name_or_path: "m", model_patch: f.wrongPatch },
      ]),
    );
    // Temp folders (the copies, the sandboxes' /tmp) go under root/tmp for this run.
    const tmp = join(root, "tmp");
    mkdirSync(tmp);
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const out: string[] = [];
    const code = await runEval(
      {
        predictions: preds,
        dataset,
        split: "test",
        runId: "bw",
        workers: "2",
        environment: "bwrap",
        reposDir: f.reposDir,
        timeout: "60",
        output: join(root, "out"),
        harnessVersion: "4.1",
        config: ['environment.env.PYTHONDONTWRITEBYTECODE="1"'],
        python: "/usr/bin/python3",
        envCheckCache: join(root, "env-checks"),
      },
      { out: (t) => out.push(t), err: (t) => out.push(t) },
    ).finally(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    });
    expect(out.join("")).toContain("Resolved 1/2 (50.0%)");
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(root, "out", "bw", "m.bw.json"), "utf8"));
    expect(summary.resolved_ids).toEqual(["acme__calc-1"]);
    expect(summary.unresolved_ids).toEqual(["acme__calc-2"]);
    const log = readFileSync(join(root, "out", "bw", "acme__calc-1", "test_output.txt"), "utf8");
    expect(log).toContain("Updated 2 paths from");
    // The sandbox shows the work tree at /testbed; the check ran there first, with Debian's python3.
    const entry = JSON.parse(readFileSync(join(root, "out", "bw", "acme__calc-1", "report.json"), "utf8"))[
      "acme__calc-1"
    ];
    expect(entry.environment).toMatchObject({
      kind: "bwrap",
      python: {
        executable: "/usr/bin/python3",
        declared: { interpreter: "/usr/bin/python3", PYTHONPATH: "/testbed" },
        work_tree: "/testbed",
        package: { name: "calc", file: "/testbed/calc/__init__.py", inside_work_tree: true },
      },
      check: { status: "ok", cached: false, problems: [] },
    });
    expect(log).not.toContain("fatal:");
    expect(
      execFileSync("git", ["worktree", "list"], { cwd: f.clone, encoding: "utf8" }).trim().split("\n"),
    ).toHaveLength(1);
    const left = readdirSync(tmp).flatMap((d) => readdirSync(join(tmp, d)).map((e) => `${d}/${e}`));
    expect(left).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  }, 120_000);
});
