import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runSelect } from "../../src/cli/select.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { describeWithEngine } from "../support/engines.js";
import { buildSelectFixture, selectRow, trajectory } from "./fixture.js";

const ID = "acme__calc-1";

describeWithEngine("bwrap", "patchloop select in a bubblewrap sandbox around a copy of --repos-dir", () => {
  const root = mkdtempSync(join(tmpdir(), "patchloop-select-bwrap-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("runs the regression tests inside the sandbox: the candidate that breaks a passing test loses", async () => {
    const f = buildSelectFixture(root);
    const dataset = join(root, "rows.json");
    writeFileSync(dataset, JSON.stringify([selectRow(f)]));
    const dir = join(root, "run");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ info: { dataset: { subset: dataset, split: "test" }, selection: {} } }),
    );
    [f.breaksLow, f.breaksLowSpaced, f.good].forEach((p, i) => {
      mkdirSync(join(dir, ID, `attempt-${i + 1}`), { recursive: true });
      writeFileSync(join(dir, ID, `attempt-${i + 1}`, `${ID}.traj.json`), trajectory(ID, p));
    });
    const err: string[] = [];
    const code = await runSelect(
      dir,
      {
        workers: "1",
        environment: "bwrap",
        reposDir: f.reposDir,
        python: "/usr/bin/python3",
        config: ['environment.env.PYTHONDONTWRITEBYTECODE="1"'],
      },
      { out: () => {}, err: (t) => err.push(t) },
    );
    expect(err.join("")).toMatch(
      /^\[1\/1\] acme__calc-1: attempt-3: largest group: 1 of 1 surviving candidates/,
    );
    expect(code).toBe(0);
    const rec = JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8")) as SelectionRecord;
    expect(rec.problems).toEqual([]);
    expect(rec.regression).toEqual({ files: ["tests/test_ops.py"], passing_at_base: 3 });
    expect(rec.candidates.map((c) => c.regression?.broke)).toEqual([
      ["tests/test_ops.py::test_clamp_low"],
      ["tests/test_ops.py::test_clamp_low"],
      [],
    ]);
    expect(JSON.parse(readFileSync(join(dir, "preds.json"), "utf8"))[ID].model_patch).toBe(f.good);
  });
});
