import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runPatchloop } from "../support/cli.js";

// The docs write `patchloop eval DIR` (docs/attempts.md, report.md, compare.md): the run folder
// is an argument, as for select, report and inspect; --predictions still works.
describe("patchloop eval DIR", () => {
  const root = mkdtempSync(join(tmpdir(), "patchloop-eval-dir-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("takes the run folder as its argument (here one without preds.json, which it names)", async () => {
    const r = await runPatchloop(["eval", root, "--environment", "local", "--repos-dir", root]);
    expect(r.stderr).not.toContain("required option");
    expect(r.stderr).toContain(
      `--predictions ${root}: a folder without preds.json (pass a run folder made by patchloop swebench -o DIR, or a predictions file)`,
    );
    expect(r.code).toBe(2);
  });

  it("says what to pass when nothing names the predictions", async () => {
    const r = await runPatchloop(["eval"]);
    expect(r.stderr).toBe(
      "error: nothing to grade: pass a run folder (patchloop eval DIR) or --predictions FILE|DIR|gold (gold grades each row's own patch)\n",
    );
    expect(r.code).toBe(2);
  });

  it("refuses two different predictions", async () => {
    const r = await runPatchloop(["eval", root, "--predictions", "preds.json"]);
    expect(r.stderr).toBe(
      `error: two predictions given: ${JSON.stringify(root)} and --predictions "preds.json"; pass one (patchloop eval DIR, or --predictions FILE|DIR|gold)\n`,
    );
    expect(r.code).toBe(2);
  });
});
