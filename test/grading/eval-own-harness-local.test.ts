import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeRow } from "../../src/dataset/kinds.js";
import { evaluatePredictions } from "../../src/grading/evaluate.js";
import type { Prediction } from "../../src/grading/predictions.js";
import { buildCalcFixture, type CalcFixture } from "../support/calc-fixture.js";
import { localGrading } from "../support/local-grading.js";
import { havePytest } from "../support/pytest-skips.js";

const F2P = ["tests/test_clamp.py::test_clamp_high"];
const P2P = [
  "tests/test_ops.py::test_add",
  "tests/test_ops.py::test_clamp_low",
  "tests/test_ops.py::test_add_negative",
];

describe.skipIf(!havePytest())("Live rows graded on the host; Pro rows refused outside their images", () => {
  let f: CalcFixture;
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-own-local-"));
    f = buildCalcFixture(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("Live: gold resolved, a non-fix unresolved, a parser that raises is an infrastructure failure; Pro: an error saying to use its image", async () => {
    const live = (n: number, parser: string) =>
      normalizeRow(
        {
          repo: "acme/calc",
          instance_id: `acme__calc-${n}`,
          base_commit: f.baseCommit,
          patch: f.goldPatch,
          test_patch: f.testPatch,
          FAIL_TO_PASS: F2P,
          PASS_TO_PASS: P2P,
          rebuild_cmds: [],
          test_cmds: ["/usr/bin/python3 -m pytest -rA -p no:cacheprovider tests"],
          print_cmds: [],
          log_parser: parser,
        },
        "live",
        "test row",
      );
    const pro = normalizeRow(
      {
        repo: "acme/calc",
        instance_id: "acme__calc-9",
        base_commit: f.baseCommit,
        fail_to_pass: "['tests/test_clamp.py::test_clamp_high']",
        pass_to_pass: "[]",
        before_repo_set_cmd: "true",
        selected_test_files_to_run: "['tests/test_clamp.py']",
        dockerhub_tag: "t",
      },
      "pro",
      "test row",
    );
    const rows = [
      live(1, "pytest"),
      live(2, "pytest"),
      live(3, "def parser(log):\n    raise ValueError('bad log')\n"),
      pro,
    ];
    const patches = [f.goldPatch, f.wrongPatch, f.goldPatch, f.goldPatch];
    const predictions: Prediction[] = rows.map((r, i) => ({
      instance_id: r.instance_id,
      model_name_or_path: "m",
      model_patch: patches[i],
    }));
    const out = join(root, "out");
    const run = await evaluatePredictions({
      dataset: rows,
      predictions,
      runId: "r",
      outputDir: out,
      provider: localGrading(f.reposDir),
      harness: "5",
      timeout: 120,
    });
    const outcome = Object.fromEntries(run.results.map((r) => [r.instance_id, r.outcome]));
    expect(outcome).toEqual({
      "acme__calc-1": "resolved",
      "acme__calc-2": "unresolved",
      "acme__calc-3": "error",
      "acme__calc-9": "error",
    });
    const errors = Object.fromEntries(run.results.map((r) => [r.instance_id, r.error]));
    expect(errors["acme__calc-3"]).toMatch(
      /^infrastructure failure: the row's parser printed no result: .*ValueError: bad log/s,
    );
    expect(errors["acme__calc-9"]).toContain(
      "instance acme__calc-9 is a SWE-bench Pro instance: it grades in its image (--environment docker or podman)",
    );
    const log = readFileSync(join(out, "r", "acme__calc-1", "test_output.txt"), "utf8");
    expect(log).toContain("PASSED tests/test_clamp.py::test_clamp_high");
    expect(run.summary.resolved_ids).toEqual(["acme__calc-1"]);
    expect(run.summary.error_ids).toEqual(["acme__calc-3", "acme__calc-9"]);
    expect(run.summary.unresolved_ids).toEqual(["acme__calc-2"]);
    expect(run.summary.patchloop.infrastructure_error_ids).toEqual(["acme__calc-3", "acme__calc-9"]);
  }, 300_000);
});
