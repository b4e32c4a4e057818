import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import { buildCalcFixture, type CalcFixture } from "../support/calc-fixture.js";
import { describeWithEngine } from "../support/engines.js";
import { docker, ensurePythonImage, PYTHON_IMAGE } from "../support/python-image.js";

const F2P = ["tests/test_clamp.py::test_clamp_high"];
const P2P = [
  "tests/test_ops.py::test_add",
  "tests/test_ops.py::test_clamp_low",
  "tests/test_ops.py::test_add_negative",
];

// A Pro-style run script and parser for the fixture (Pro's own are per instance in SWE-bench_Pro-os).
const RUN_SCRIPT = `#!/bin/bash
cd /app
python3 -m pytest -rA -p no:cacheprovider $(echo "$1" | tr ',' ' ')
`;
const PARSER = `import json, sys
tests = []
for line in open(sys.argv[1]):
    word, _, rest = line.partition(" ")
    if word in ("PASSED", "FAILED", "ERROR"):
        tests.append({"name": rest.split(" - ")[0].strip(), "status": word})
json.dump({"tests": tests}, open(sys.argv[3], "w"))
`;
const LIVE_PARSER = `def parser(log):
    out = {}
    for line in log.splitlines():
        if line.startswith("PASSED "):
            out[line.split()[1]] = "pass"
        elif line.startswith("FAILED "):
            out[line.split()[1]] = "fail"
    return out
`;

describeWithEngine(
  "docker",
  "SWE-bench Pro and SWE-bench-Live rows graded by their own harnesses' sequences",
  () => {
    let f: CalcFixture;
    let root: string;
    let image: string;

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "patchloop-own-harness-"));
      f = buildCalcFixture(root);
      ensurePythonImage();
      const context = join(root, "image");
      cpSync(f.clone, join(context, "repo"), { recursive: true });
      writeFileSync(join(context, "test.patch"), f.testPatch);
      // Pro's images keep the repository at /app, Live's at /testbed: this one has both.
      writeFileSync(
        join(context, "Dockerfile"),
        `FROM ${PYTHON_IMAGE}
COPY repo /app
COPY repo /testbed
COPY test.patch /opt/test.patch
RUN ln -s /usr/bin/python3 /usr/local/bin/python && git config --global --add safe.directory '*'
ENV PYTHONDONTWRITEBYTECODE=1
`,
      );
      image = `patchloop-test/own-harness:${Date.now().toString(36)}`;
      docker(["build", "-q", "-t", image, context]);
    }, 600_000);

    afterAll(() => {
      if (image) spawnSync("docker", ["rmi", "-f", image], { stdio: "ignore" });
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it("Pro: gold resolved, a non-fix unresolved, a parser that writes nothing an infrastructure failure; Live: pytest and a row's parser", async () => {
      const scripts = join(root, "pro-os");
      const proRow = (n: number) => {
        const id = `acme__calc-p${n}`;
        const run = join(scripts, "run_scripts", id);
        mkdirSync(run, { recursive: true });
        writeFileSync(join(run, "run_script.sh"), RUN_SCRIPT);
        writeFileSync(join(run, "parser.py"), n === 3 ? "import sys\n" : PARSER);
        for (const kind of ["base_dockerfile", "instance_dockerfile"]) {
          mkdirSync(join(scripts, "dockerfiles", kind, id), { recursive: true });
          writeFileSync(
            join(scripts, "dockerfiles", kind, id, "Dockerfile"),
            `FROM x\nENV PRO_${kind.toUpperCase()}=1\n`,
          );
        }
        return {
          repo: "acme/calc",
          instance_id: id,
          base_commit: f.baseCommit,
          patch: f.goldPatch,
          test_patch: f.testPatch,
          problem_statement: "clamp(15, 0, 10) returns 0",
          repo_language: "python",
          fail_to_pass: `[${F2P.map((t) => `'${t}'`).join(", ")}]`,
          pass_to_pass: `[${P2P.map((t) => `'${t}'`).join(", ")}]`,
          before_repo_set_cmd: `git reset --hard ${f.baseCommit}\ngit apply /opt/test.patch`,
          selected_test_files_to_run: "['tests/test_clamp.py', 'tests/test_ops.py']",
          dockerhub_tag: "unused",
          image_name: image,
        };
      };
      const liveRow = (n: number, parser: string, test: string) => ({
        repo: "acme/calc",
        instance_id: `acme__calc-l${n}`,
        base_commit: f.baseCommit,
        patch: f.goldPatch,
        test_patch: f.testPatch,
        problem_statement: "clamp(15, 0, 10) returns 0",
        FAIL_TO_PASS: F2P,
        PASS_TO_PASS: P2P,
        rebuild_cmds: ["true"],
        test_cmds: [test],
        print_cmds: n === 1 ? [] : ["cat /tmp/test.log"],
        log_parser: parser,
        docker_image: image,
      });
      const pytest = "python3 -m pytest -rA -p no:cacheprovider tests";
      // Without print commands (l1) Live runs the test commands through run_test.sh into testlog.out.
      const rows = [
        proRow(1),
        proRow(2),
        proRow(3),
        liveRow(1, "pytest", pytest),
        liveRow(2, LIVE_PARSER, `${pytest} > /tmp/test.log 2>&1`),
      ];
      const dataset = join(root, "rows.jsonl");
      writeFileSync(dataset, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
      const patches: Record<string, string> = {
        "acme__calc-p1": f.goldPatch,
        "acme__calc-p2": f.wrongPatch,
        "acme__calc-p3": f.goldPatch,
        "acme__calc-l1": f.goldPatch,
        "acme__calc-l2": f.wrongPatch,
      };
      const preds = join(root, "preds.json");
      writeFileSync(
        preds,
        JSON.stringify(
          Object.fromEntries(
            Object.entries(patches).map(([id, p]) => [id, { model_name_or_path: "org/m", model_patch: p }]),
          ),
        ),
      );
      const flags: EvalFlags = {
        predictions: preds,
        dataset,
        split: "test",
        runId: "own-1",
        workers: "2",
        environment: "docker",
        timeout: "120",
        output: join(root, "out"),
        harnessVersion: "5",
        proScripts: scripts,
        config: [],
      };
      const code = await runEval(flags, { out: () => undefined, err: () => undefined });
      const summary = JSON.parse(readFileSync(join(root, "out", "own-1", "org__m.own-1.json"), "utf8"));
      expect(summary).toMatchObject({
        total_instances: 5,
        resolved_ids: ["acme__calc-l1", "acme__calc-p1"],
        unresolved_ids: ["acme__calc-l2", "acme__calc-p2"],
        error_ids: ["acme__calc-p3"],
      });
      expect(code).toBe(1);
      const p1 = join(root, "out", "own-1", "acme__calc-p1");
      expect(readFileSync(join(p1, "entryscript.sh"), "utf8")).toContain(
        "export PRO_BASE_DOCKERFILE=1\nexport PRO_INSTANCE_DOCKERFILE=1\n# apply patch\ncd /app\n",
      );
      expect(JSON.parse(readFileSync(join(p1, "output.json"), "utf8")).tests).toHaveLength(4);
      const report = JSON.parse(
        readFileSync(join(root, "out", "own-1", "acme__calc-p2", "report.json"), "utf8"),
      );
      expect(report["acme__calc-p2"].tests_status.FAIL_TO_PASS).toEqual({ success: [], failure: F2P });
      const l2 = JSON.parse(readFileSync(join(root, "out", "own-1", "acme__calc-l2", "report.json"), "utf8"));
      expect(l2["acme__calc-l2"].tests_status.FAIL_TO_PASS).toEqual({ success: [], failure: F2P });
      expect(readFileSync(join(root, "out", "own-1", "acme__calc-p3", "run_instance.log"), "utf8")).toContain(
        "infrastructure failure: the parser wrote no output.json (see stdout.log and stderr.log)",
      );
    }, 600_000);
  },
);
