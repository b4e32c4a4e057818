import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runSelect } from "../../src/cli/select.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { describeWithEngine } from "../support/engines.js";
import { buildTestbedImage } from "../support/python-image.js";
import { buildSelectFixture, type SelectFixture, selectRow, trajectory } from "./fixture.js";

const ID = "acme__calc-1";

describeWithEngine("docker", "patchloop select in the instance's container (image built here)", () => {
  let f: SelectFixture;
  let root: string;
  let image: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-select-docker-"));
    f = buildSelectFixture(root);
    image = buildTestbedImage(
      join(f.reposDir, "acme__calc"),
      join(root, "image"),
      "patchloop-test/select-instance",
    );
  }, 600_000);

  afterAll(() => {
    if (image) spawnSync("docker", ["rmi", "-f", image], { stdio: "ignore" });
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("runs the regression tests in the container: the candidate that breaks a passing test loses", async () => {
    const dataset = join(root, "rows.json");
    writeFileSync(
      dataset,
      JSON.stringify([
        selectRow(f, { image_name: image, test_cmd: "python3 -m pytest -rA -p no:cacheprovider" }),
      ]),
    );
    const dir = join(root, "run");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ info: { dataset: { subset: dataset, split: "test" }, selection: {} } }),
    );
    [f.breaksLow, f.breaksLowSpaced, f.good, f.stale].forEach((p, i) => {
      mkdirSync(join(dir, ID, `attempt-${i + 1}`), { recursive: true });
      writeFileSync(join(dir, ID, `attempt-${i + 1}`, `${ID}.traj.json`), trajectory(ID, p));
    });
    const err: string[] = [];
    const code = await runSelect(
      dir,
      { workers: "1", environment: "docker", config: [] },
      { out: () => {}, err: (t) => err.push(t) },
    );
    expect(err.join("")).toMatch(/^\[1\/1\] acme__calc-1: attempt-3: /);
    expect(code).toBe(0);
    const rec = JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8")) as SelectionRecord;
    expect(rec.problems).toEqual([]);
    expect(rec.regression).toEqual({ files: ["tests/test_ops.py"], passing_at_base: 3 });
    expect(rec.candidates.map((c) => [c.status, c.regression?.broke])).toEqual([
      ["patch", ["tests/test_ops.py::test_clamp_low"]],
      ["patch", ["tests/test_ops.py::test_clamp_low"]],
      ["patch", []],
      ["does_not_apply", undefined],
    ]);
    expect(JSON.parse(readFileSync(join(dir, "preds.json"), "utf8"))[ID].model_patch).toBe(f.good);
  });
});
