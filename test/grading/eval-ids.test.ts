import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalFlags, runEval } from "../../src/cli/eval.js";
import { buildCalcFixture, type CalcFixture, calcRow } from "../support/calc-fixture.js";

/**
 * `patchloop eval` writes each instance's reports to `<output>/<run id>/<instance id>/`: an id of a
 * dataset (and its prediction) that climbs out with `..` or holds a `/` is refused before anything
 * is graded or written, by the rule the batch applies to `DIR/<id>/` (issue 41, item 10).
 */
describe("patchloop eval refuses instance ids that cannot name a report folder", () => {
  let root: string;
  let f: CalcFixture;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "patchloop-eval-ids-"));
    f = buildCalcFixture(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ["../../escaped", "climbs out of the output folder"],
    ["acme/calc-1", "holds a slash"],
    ["..", "is the parent folder"],
  ])("the id %j (%s): exit 2, a clear message, nothing written", async (id) => {
    const dir = mkdtempSync(join(root, "case-"));
    const dataset = join(dir, "rows.jsonl");
    writeFileSync(dataset, `${JSON.stringify(calcRow(f, 1, { instance_id: id }))}\n`);
    const preds = join(dir, "preds.json");
    writeFileSync(
      preds,
      JSON.stringify([{ instance_id: id, model_patch: f.goldPatch, model_name_or_path: "m" }]),
    );
    const out = join(dir, "a", "b", "out");
    const err: string[] = [];
    const flags: EvalFlags = {
      predictions: preds,
      dataset,
      split: "test",
      runId: "ids",
      workers: "1",
      environment: "local",
      reposDir: f.reposDir,
      timeout: "60",
      output: out,
      harnessVersion: "4.1",
      config: [],
      checkEnv: false,
      envCheckCache: join(dir, "env-checks"),
    };
    const code = await runEval(flags, { out: () => {}, err: (t) => err.push(t) });
    expect(err.join("")).toContain(
      `error: instance id ${JSON.stringify(id)} cannot name a folder under ${join(out, "ids")} (no /, \\ or empty ids); eval writes each instance's reports to <output>/<run id>/<instance id>/`,
    );
    expect(code).toBe(2);
    // nothing graded, nothing written: not under -o, not beside it
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(["preds.json", "rows.jsonl"]);
  });
});
