import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runEval } from "../../src/cli/eval.js";
import { runSelect } from "../../src/cli/select.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { localBatchArgs, readJson, useFixtureBatch } from "../batch/helpers.js";
import { FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { bashReply as bash, havePytest, swebench } from "../support/swebench-command.js";

/**
 * `patchloop select DIR` on a batch's folder tests the way the batch did (issue 40, item 1): the
 * environment class, the clones folder and the config come from run.json, so it picks what the
 * batch's own selection picked; when its tests cannot run it says so, keeps what preds.json holds
 * and exits 1, unless --accept-untested.
 */

/** A wrong fix that breaks the test passing at the base commit (add(0, 0) becomes 1). */
const BREAKS = "sed -i 's/ - b  # BUG$/ + b + 1/' $(git grep -l -e '# BUG$')";

describe.skipIf(!havePytest())("patchloop select DIR takes the run's own settings", () => {
  const b = useFixtureBatch("patchloop-select-settings-", { count: 1, repos: 1 });

  it("picks what the batch picked without a flag; untested, it keeps preds.json and exits 1; --accept-untested takes the pick", async () => {
    const id = b.f.rows[0].instance_id;
    // -w 1: attempt 1 breaks a passing test, attempt 2 fixes the bug; one line each, so only the tests tell them apart
    b.server.enqueue(bash(BREAKS), bash(SUBMIT_COMMAND), bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    const dir = join(b.root, "run");
    const batch = await swebench([
      ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
      "-o",
      dir,
      "--attempts",
      "2",
      "-c",
      "run.select.enabled=true",
    ]);
    expect(batch.code, batch.err).toBe(0);
    const runJson = readJson<{ info: { machine: Record<string, unknown> } }>(join(dir, "run.json"));
    expect(runJson.info.machine).toEqual({ repos_dir: b.f.reposDir, python: null, specs: null });
    const record = (): SelectionRecord => JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8"));
    const predsPatch = () =>
      readJson<Record<string, { model_patch: string }>>(join(dir, "preds.json"))[id].model_patch;
    const byBatch = record();
    expect(byBatch.selected_source).toBe("attempt-2");
    expect(byBatch.candidates.map((c) => [c.source, c.attempt, c.regression?.broke.length])).toEqual([
      ["attempt-1", 1, 1],
      ["attempt-2", 2, 0],
    ]);
    expect(predsPatch()).toBe(b.f.rows[0].patch);

    const err: string[] = [];
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };

    // Again by hand, no flag but the folder: the same pick, for the same reasons.
    expect(await runSelect(dir, { workers: "1", config: [] }, io)).toBe(0);
    const again = record();
    expect(again.selected).toBe(byBatch.selected);
    expect(again.candidates.map((c) => c.regression)).toEqual(
      byBatch.candidates.map((c) => ({ ...c.regression, cached: true })),
    );
    expect(again.untested).toBeUndefined();
    expect(err.join("")).toMatch(
      new RegExp(
        `^\\[1/1\\] ${id}: attempt-2: largest group: 1 of 1 surviving candidates \\(group 2\\); its smallest patch \\([\\d.]+ s\\)\\n$`,
      ),
    );
    expect(predsPatch()).toBe(b.f.rows[0].patch);

    // eval of the folder grades where the batch ran too (local, its clones), with no flag but the folder
    const graded = { out: [] as string[], err: [] as string[] };
    const evalIo = { out: (t: string) => graded.out.push(t), err: (t: string) => graded.err.push(t) };
    const code = await runEval({ predictions: dir, workers: "1", timeout: "300", config: [] }, evalIo);
    expect(code, graded.err.join("")).toBe(0);
    expect(graded.out.join("")).toContain("Resolved 1/1 (100.0%) of the 1 instance the run took");

    // The tests cannot run (the clones folder given is empty; the cache of the earlier runs removed):
    // the console says so, preds.json keeps attempt 2's patch, exit 1.
    err.length = 0;
    const noClones = join(b.root, "empty-repos");
    mkdirSync(noClones);
    rmSync(join(dir, ".select-cache"), { recursive: true, force: true });
    const noRepos = { workers: "1", config: [], reposDir: noClones };
    out.length = 0;
    expect(await runSelect(dir, noRepos, io)).toBe(1);
    // nothing was selected: the count says 0, and names the instance kept untested
    expect(out.join("")).toBe(
      `selected a patch for 0 of 1 instances; 1 NOT TESTED (preds.json kept the patch it held)\n${join(dir, "preds.json")}\n${join(dir, "selection.jsonl")}\n`,
    );
    const untested = record();
    expect(untested.untested).toMatch(/^the candidates could not be run in the instance's environment: /);
    expect(untested).toMatchObject({
      selected_source: "attempt-1",
      preds_json: "kept",
      kept_source: "attempt-2",
    });
    expect(predsPatch()).toBe(b.f.rows[0].patch);
    const said = err.join("");
    expect(said).toContain(
      `[1/1] ${id}: NOT TESTED: ${(untested.untested ?? "").replace(/\.$/, "")}. preds.json keeps attempt-2's patch; untested, the vote alone would pick attempt-1 (--accept-untested takes it)`,
    );
    expect(said).toContain(
      `1 instance(s) NOT TESTED, preds.json kept their patches: ${id}. Fix what stopped the tests (the lines above say it), or pass --accept-untested to take the untested picks.\n`,
    );

    // Accepted explicitly: the untested pick is written, exit 0.
    err.length = 0;
    expect(await runSelect(dir, { ...noRepos, acceptUntested: true }, io)).toBe(0);
    expect(record()).toMatchObject({ selected_source: "attempt-1", preds_json: "written" });
    expect(err.join("")).toContain(`[1/1] ${id}: attempt-1, NOT TESTED (accepted with --accept-untested): `);
    expect(predsPatch()).not.toBe(b.f.rows[0].patch);
  });

  it("the batch's own selection, when the tests cannot run (no test command), keeps the standing attempt and says so for the instance", async () => {
    const id = b.f.rows[0].instance_id;
    // rows without test_cmd and log_parser, for a repository no spec knows: no test command
    const dataset = join(b.root, "no-test-command.jsonl");
    const { test_cmd: _c, log_parser: _p, ...bare } = b.f.rows[0];
    writeFileSync(dataset, `${JSON.stringify(bare)}\n`);
    // attempt 1 fixes the bug with one more line than attempt 2: untested, the vote picks the smaller
    const FIX_MORE = `${FIX_COMMAND} && printf 'EXTRA = 1\\n' >> $(git grep -l -e ' + b$' -- '*.py')`;
    b.server.enqueue(bash(FIX_MORE), bash(SUBMIT_COMMAND), bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    const dir = join(b.root, "run-untested");
    const batch = await swebench([
      ...localBatchArgs(dataset, b.server.url, b.f.reposDir),
      "-o",
      dir,
      "--attempts",
      "2",
      "-c",
      "run.select.enabled=true",
    ]);
    expect(batch.code, batch.err).toBe(0);
    const rec = JSON.parse(readFileSync(join(dir, "selection.jsonl"), "utf8")) as SelectionRecord;
    expect(rec.untested).toBe(
      `instance ${id}: no test command for acme/lib0 version "1.0". Give the row test_cmd and log_parser fields, or pass --specs FILE mapping the repo to them.`,
    );
    expect(rec).toMatchObject({ selected_source: "attempt-2", preds_json: "kept", kept_source: "attempt-1" });
    expect(batch.err).toContain(
      `[1/1] ${id}: NOT TESTED: ${(rec.untested ?? "").replace(/\.$/, "")}. preds.json keeps attempt-1's patch; untested, the vote alone would pick attempt-2 (--accept-untested takes it)`,
    );
    expect(batch.out).toContain(
      `selection: a patch for 0 of 1 instances (${join(dir, "selection.jsonl")}); 1 NOT TESTED kept their standing attempt (patchloop select ${dir} --accept-untested takes the untested picks)\n`,
    );
    const preds = readJson<Record<string, { model_patch: string }>>(join(dir, "preds.json"));
    expect(preds[id].model_patch).toContain("+EXTRA = 1");
  });
});
