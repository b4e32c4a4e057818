import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../src/agent/protocols/types.js";
import { sourceCommit } from "../../src/agent/source-commit.js";
import { versions } from "../../src/agent/versions.js";
import { runBatch } from "../../src/batch/run-batch.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { git } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson, trajectory, workRootsOf } from "./helpers.js";

/** Scripts per instance: 1-3 fix and submit; 4 never submits and hits the step limit of 2. */
function scripts(): {
  models: Map<string, ScriptedModel>;
  modelFor: (row: SwebenchInstance) => ScriptedModel;
} {
  const models = new Map<string, ScriptedModel>();
  return {
    models,
    modelFor: (row) => {
      const m = row.instance_id.endsWith("-4")
        ? new ScriptedModel([bash("git status --short", 0.01), bash("true", 0.01)])
        : new ScriptedModel([bash(FIX_COMMAND, 0.02), bash(SUBMIT_COMMAND, 0.02)]);
      models.set(row.instance_id, m);
      return m;
    },
  };
}

const refsOf = (repo: string) => git(repo, "for-each-ref", "--format=%(refname) %(objectname)");

describe("batch with the scripted model, local environment", () => {
  let f: FixtureInstances;
  beforeAll(() => {
    f = buildFixtureInstances(mkdtempSync(join(tmpdir(), "patchloop-batch-fixture-")), {
      count: 4,
      repos: 2,
    });
  });
  afterAll(() => rmSync(join(f.reposDir, ".."), { recursive: true, force: true }));

  it("runs every instance in its own checkout, writes the run folder, and resumes without re-running", async () => {
    const out = join(tempDir(), "run");
    const config = localSwebenchConfig(["agent.step_limit=2"]);
    const refsBefore = [refsOf(join(f.reposDir, "acme__lib0")), refsOf(join(f.reposDir, "acme__lib1"))];
    const s = scripts();
    const events: string[] = [];
    const result = await runBatch({
      config,
      instances: f.rows,
      outputDir: out,
      workers: 2,
      reposDir: f.reposDir,
      modelFor: s.modelFor,
      onEvent: (e) => {
        if (e.type === "instance_start") events.push(`start ${e.instance_id}`);
        if (e.type === "instance_end") events.push(`end ${e.outcome.instance_id}`);
      },
    });
    for (const m of s.models.values()) m.assertAllUsed();
    expect(result.stoppedBy).toBeNull();
    expect(result.skipped).toEqual([]);
    expect(result.notStarted).toEqual([]);
    expect(result.statuses).toEqual({
      "acme__lib0-1": "Submitted",
      "acme__lib1-2": "Submitted",
      "acme__lib0-3": "Submitted",
      "acme__lib1-4": "LimitsExceeded",
    });
    expect(result.totals).toEqual({
      api_calls: 8,
      cost: expect.closeTo(0.14, 9),
      prompt_tokens: 800,
      completion_tokens: 80,
    });
    expect(events.filter((e) => e.startsWith("start"))).toHaveLength(4);

    // preds.json: the submitted patches are exactly the gold patches; the unfinished one is the (empty) diff.
    const preds = readJson<
      Record<string, { instance_id: string; model_name_or_path: string; model_patch: string }>
    >(join(out, "preds.json"));
    expect(Object.keys(preds).sort()).toEqual(f.rows.map((r) => r.instance_id).sort());
    for (const row of f.rows.slice(0, 3)) {
      expect(preds[row.instance_id]).toEqual({
        instance_id: row.instance_id,
        model_name_or_path: "scripted",
        model_patch: row.patch,
      });
    }
    expect(preds["acme__lib1-4"].model_patch).toBe("");

    // The instance template got the row and the problem statement; the cwd is the checkout, not /testbed.
    const first = s.models.get("acme__lib1-2")?.calls[0].messages[1];
    const text = first ? textOf(first) : "";
    expect(text).toContain("Instance acme__lib1-2: add2(2, 3) returns -1 instead of 5.");
    expect(text).toContain("The repository acme/lib1 is checked out at /");
    expect(text).not.toContain("/testbed");

    expect(trajectory(out, "acme__lib0-1").info.exit_status).toBe("Submitted");
    expect(trajectory(out, "acme__lib1-4").info).toMatchObject({
      exit_status: "LimitsExceeded",
      instance_id: "acme__lib1-4",
    });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(
      "Submitted:\n  - acme__lib0-1\n  - acme__lib0-3\n  - acme__lib1-2\nLimitsExceeded:\n  - acme__lib1-4\n",
    );
    const run = readJson<Record<string, unknown> & { instances: Record<string, Record<string, unknown>> }>(
      join(out, "run.json"),
    );
    expect(run).toMatchObject({
      run_format: "patchloop-run-1",
      state: "finished",
      stopped_by: null,
      selected: 4,
      skipped: 0,
    });
    expect(run.instances["acme__lib0-1"]).toMatchObject({
      exit_status: "Submitted",
      api_calls: 2,
      patch_bytes: Buffer.byteLength(f.rows[0].patch),
    });
    expect(typeof run.instances["acme__lib0-1"].environment_seconds).toBe("number");
    expect((run.config as { environment: { environment_class: string } }).environment.environment_class).toBe(
      "local",
    );
    expect(run.versions).toEqual(versions());
    expect(Object.keys(run.versions as object)).toEqual(
      sourceCommit()
        ? ["patchloop", "patchloop_commit", "node", "platform"]
        : ["patchloop", "node", "platform"],
    );
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toMatch(/batch: 4 selected, 0 with a final status kept, 4 to run, 2 workers/);
    expect(log).toMatch(/end acme__lib1-4 LimitsExceeded \(2 calls/);

    // Checkouts are gone; the clones in --repos-dir are untouched (no worktrees, refs or changes).
    expect(workRootsOf(tmpdir(), process.pid)).toEqual([]);
    expect([refsOf(join(f.reposDir, "acme__lib0")), refsOf(join(f.reposDir, "acme__lib1"))]).toEqual(
      refsBefore,
    );
    expect(git(join(f.reposDir, "acme__lib0"), "status", "--porcelain")).toBe("");
    expect(git(join(f.reposDir, "acme__lib0"), "worktree", "list").trim().split("\n")).toHaveLength(1);

    // Same command again: every instance has a final status, so nothing runs and no model is made.
    const again = await runBatch({
      config,
      instances: f.rows,
      outputDir: out,
      workers: 2,
      reposDir: f.reposDir,
      modelFor: () => {
        throw new Error("no model may be needed on resume");
      },
    });
    expect(again.outcomes).toEqual([]);
    expect(again.skipped).toHaveLength(4);
    expect(again.statuses["acme__lib1-4"]).toBe("LimitsExceeded");
    expect(readJson(join(out, "preds.json"))).toEqual(preds);

    // --redo-existing runs them all again.
    const s2 = scripts();
    const redo = await runBatch({
      config,
      instances: f.rows,
      outputDir: out,
      workers: 4,
      reposDir: f.reposDir,
      modelFor: s2.modelFor,
      redoExisting: true,
    });
    expect(redo.outcomes).toHaveLength(4);
    expect(s2.models.size).toBe(4);
  });

  it("an environment that cannot be opened is an EnvironmentError, recorded, and run again next time", async () => {
    const out = join(tempDir(), "run");
    const broken = { ...f.rows[0], base_commit: "0123456789abcdef0123456789abcdef01234567" };
    const s = scripts();
    const first = await runBatch({
      config: localSwebenchConfig(),
      instances: [broken],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: s.modelFor,
    });
    expect(first.statuses).toEqual({ "acme__lib0-1": "EnvironmentError" });
    expect(s.models.size).toBe(0);
    const info = trajectory(out, "acme__lib0-1").info;
    expect(info.exit_status).toBe("EnvironmentError");
    expect(info.exit_message).toMatch(
      /^could not open the environment: cannot check out base commit 0123456789abcdef0123456789abcdef01234567 of acme__lib0-1 from .*acme__lib0; fetch it there/,
    );
    expect(readJson(join(out, "preds.json"))).toEqual({
      "acme__lib0-1": { instance_id: "acme__lib0-1", model_name_or_path: "scripted", model_patch: "" },
    });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(
      "EnvironmentError:\n  - acme__lib0-1\n",
    );

    const second = await runBatch({
      config: localSwebenchConfig(),
      instances: [f.rows[0]],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: s.modelFor,
    });
    expect(second.statuses).toEqual({ "acme__lib0-1": "Submitted" });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe("Submitted:\n  - acme__lib0-1\n");
  });

  it("a missing clone in --repos-dir names the folder expected", async () => {
    const out = join(tempDir(), "run");
    const row = { ...f.rows[0], repo: "acme/nothere" };
    await runBatch({
      config: localSwebenchConfig(),
      instances: [row],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: scripts().modelFor,
    });
    expect(trajectory(out, row.instance_id).info.exit_message).toBe(
      `could not open the environment: no clone of acme/nothere at ${join(f.reposDir, "acme__nothere")}: --repos-dir must hold one git ` +
        `clone per repository, named owner__repo (e.g. git clone https://github.com/acme/nothere ${join(f.reposDir, "acme__nothere")})`,
    );
  });

  it("restores a preds.json entry from the trajectory when a run died between the two writes", async () => {
    const out = join(tempDir(), "run");
    await runBatch({
      config: localSwebenchConfig(),
      instances: f.rows.slice(0, 2),
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: scripts().modelFor,
    });
    const preds = readJson<Record<string, unknown>>(join(out, "preds.json"));
    const { "acme__lib1-2": lost, ...kept } = preds;
    writeFileSync(join(out, "preds.json"), JSON.stringify(kept));
    const again = await runBatch({
      config: localSwebenchConfig(),
      instances: f.rows.slice(0, 2),
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: () => {
        throw new Error("nothing runs");
      },
    });
    expect(again.skipped).toEqual(["acme__lib0-1", "acme__lib1-2"]);
    expect(readJson(join(out, "preds.json"))).toEqual({ ...kept, "acme__lib1-2": lost });
  });

  it("refuses a preds.json it cannot read, and leaves it as it was", async () => {
    const out = tempDir();
    writeFileSync(join(out, "preds.json"), "{ not json");
    await expect(
      runBatch({ config: localSwebenchConfig(), instances: f.rows, outputDir: out, reposDir: f.reposDir }),
    ).rejects.toThrow(
      /preds\.json exists but is not valid JSON \(.*\)\. patchloop will not overwrite it: move it away or repair it, then run again\./,
    );
    expect(readFileSync(join(out, "preds.json"), "utf8")).toBe("{ not json");
    expect(existsSync(join(out, "run.json"))).toBe(false);
  });

  it("refuses repeated instance ids and ids that cannot name a folder", async () => {
    const out = tempDir();
    const opts = { config: localSwebenchConfig(), outputDir: out, reposDir: f.reposDir };
    await expect(runBatch({ ...opts, instances: [f.rows[0], f.rows[0]] })).rejects.toThrow(
      "instance id acme__lib0-1 appears twice in the selection; each instance may run once",
    );
    await expect(runBatch({ ...opts, instances: [{ ...f.rows[0], instance_id: "../x" }] })).rejects.toThrow(
      'instance id "../x" cannot name a folder in the run directory',
    );
  });
});
