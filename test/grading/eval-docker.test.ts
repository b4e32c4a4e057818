import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import { buildCalcFixture, type CalcFixture, calcRow } from "../support/calc-fixture.js";
import { describeWithEngine } from "../support/engines.js";
import { buildTestbedImage } from "../support/python-image.js";

describeWithEngine(
  "docker",
  "eval end to end in Docker (image built here with Debian's python3 and pytest)",
  () => {
    let f: CalcFixture;
    let root: string;
    let image: string;

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "patchloop-eval-docker-"));
      f = buildCalcFixture(root);
      image = buildTestbedImage(f.clone, join(root, "image"), "patchloop-test/calc-instance");
    }, 600_000);

    afterAll(() => {
      if (image) spawnSync("docker", ["rmi", "-f", image], { stdio: "ignore" });
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it("gold resolves, empty counts as empty, wrong is RESOLVED_NO, stale does not apply, a hang times out", async () => {
      const rows = [1, 2, 3, 4, 5].map((n) =>
        calcRow(f, n, {
          image_name: image,
          test_cmd: "python3 -m pytest -rA -p no:cacheprovider",
          log_parser: "pytest",
          ...(n === 5 ? { test_patch: f.hangTestPatch } : {}),
        }),
      );
      const dataset = join(root, "rows.jsonl");
      writeFileSync(dataset, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
      const preds = join(root, "preds.json");
      const patches = [f.goldPatch, "", f.wrongPatch, f.stalePatch, f.goldPatch];
      writeFileSync(
        preds,
        JSON.stringify(
          Object.fromEntries(
            patches.map((p, i) => [`acme__calc-${i + 1}`, { model_name_or_path: "org/m", model_patch: p }]),
          ),
        ),
      );
      const out: string[] = [];
      const flags: EvalFlags = {
        predictions: preds,
        dataset,
        split: "test",
        runId: "docker-1",
        workers: "3",
        environment: "docker",
        timeout: "20",
        output: join(root, "out"),
        harnessVersion: "4.1",
        config: [],
      };
      const code = await runEval(flags, { out: (t) => out.push(t), err: () => undefined });
      const summary = JSON.parse(readFileSync(join(root, "out", "docker-1", "org__m.docker-1.json"), "utf8"));
      expect(summary).toMatchObject({
        total_instances: 5,
        submitted_instances: 5,
        completed_instances: 2,
        resolved_ids: ["acme__calc-1"],
        unresolved_ids: ["acme__calc-3"],
        empty_patch_ids: ["acme__calc-2"],
        error_ids: ["acme__calc-4", "acme__calc-5"],
      });
      expect(summary.patchloop.patch_apply_failed_ids).toEqual(["acme__calc-4"]);
      expect(summary.patchloop.timeout_ids).toEqual(["acme__calc-5"]);
      expect(summary.patchloop.infrastructure_error_ids).toEqual([]);
      expect(code).toBe(1);
      expect(out.join("")).toContain("Resolved 1/5 (20.0%)");

      const gold = join(root, "out", "docker-1", "acme__calc-1");
      const evalSh = readFileSync(join(gold, "eval.sh"), "utf8");
      expect(evalSh).toContain("source /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\n");
      expect(evalSh).toContain("git config --global --add safe.directory /testbed\n");
      const log = readFileSync(join(gold, "test_output.txt"), "utf8");
      expect(log).toContain(
        "+ python3 -m pytest -rA -p no:cacheprovider tests/test_clamp.py tests/test_ops.py",
      );
      expect(log).toContain("PASSED tests/test_clamp.py::test_clamp_high");
      expect(
        readFileSync(join(root, "out", "docker-1", "acme__calc-5", "test_output.txt"), "utf8"),
      ).toContain("Timeout error: 20 seconds exceeded.");
      // Every container is gone.
      const left = execFileSync("docker", ["ps", "-aq", "--filter", "label=patchloop.run=docker-1"], {
        encoding: "utf8",
      });
      expect(left.trim()).toBe("");
    }, 300_000);

    it("--check-env in a container, under environment.platform (passed to the engine, recorded in report.json)", async () => {
      const log = join(root, "docker-args.log");
      const shim = join(root, "docker-args");
      writeFileSync(shim, `#!/bin/bash\nprintf '%s\\n' "$*" >> ${log}\nexec docker "$@"\n`, { mode: 0o755 });
      const row = calcRow(f, 1, {
        image_name: image,
        test_cmd: "python3 -m pytest -rA -p no:cacheprovider",
        log_parser: "pytest",
      });
      const dataset = join(root, "rows-platform.jsonl");
      writeFileSync(dataset, `${JSON.stringify(row)}\n`);
      const preds = join(root, "preds-platform.json");
      writeFileSync(
        preds,
        JSON.stringify([{ instance_id: row.instance_id, model_name_or_path: "m", model_patch: f.goldPatch }]),
      );
      const out: string[] = [];
      const code = await runEval(
        {
          predictions: preds,
          dataset,
          runId: "docker-platform",
          workers: "1",
          environment: "docker",
          timeout: "60",
          output: join(root, "out"),
          config: [`environment.executable=${shim}`],
          platform: "linux/amd64",
          checkEnv: true,
          envCheckCache: join(root, "env-checks"),
        },
        { out: (t) => out.push(t), err: () => undefined },
      );
      expect(code).toBe(0);
      expect(out.join("")).toContain("environment check: on (1 checked, 0 from the cache, 0 mismatched)");
      const entry = JSON.parse(
        readFileSync(join(root, "out", "docker-platform", "acme__calc-1", "report.json"), "utf8"),
      )["acme__calc-1"];
      expect(entry.resolved).toBe(true);
      expect(entry.environment).toEqual({
        kind: "docker",
        image,
        platform: "linux/amd64",
        python: {
          executable: "/usr/bin/python3",
          version: expect.stringMatching(/^3\.\d+\.\d+$/),
          work_tree: "/testbed",
          package: { name: "calc", file: "/testbed/calc/__init__.py", inside_work_tree: true },
        },
        check: { status: "ok", cached: false, problems: [] },
      });
      // Two containers (the check, then the grading), each started for the platform.
      const runs = readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("run "));
      expect(runs).toHaveLength(2);
      for (const r of runs)
        expect(r).toMatch(/^run -d --rm --pull never --name \S+ --platform linux\/amd64 /);
    }, 300_000);
  },
);
