import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatchOptions } from "../../src/batch/run-batch.js";
import { runBatch } from "../../src/batch/run-batch.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { LOCK_NAME } from "../../src/run-folder/lock.js";
import { ownerLabel } from "../../src/util/process-alive.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson } from "./helpers.js";

describe("the run folder: one run at a time, one config, no stale temp files", () => {
  let f: FixtureInstances;
  beforeAll(() => {
    f = buildFixtureInstances(mkdtempSync(join(tmpdir(), "patchloop-folder-fixture-")), {
      count: 2,
      repos: 1,
    });
  });
  afterAll(() => rmSync(join(f.reposDir, ".."), { recursive: true, force: true }));

  const options = (out: string, extra: string[] = [], more: Partial<BatchOptions> = {}): BatchOptions => ({
    config: localSwebenchConfig(extra),
    instances: f.rows,
    outputDir: out,
    reposDir: f.reposDir,
    modelFor: () => new ScriptedModel([bash(FIX_COMMAND), bash(SUBMIT_COMMAND)]),
    ...more,
  });

  it("a live run holds the folder; a lock left by a dead process is taken over; the lock goes at the end", async () => {
    const out = join(tempDir(), "run");
    mkdirSync(out);
    // A live process (a sleeping child) holds it.
    const holder = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(out, LOCK_NAME), `${ownerLabel(holder.pid)}\n`);
      await expect(runBatch(options(out))).rejects.toThrow(
        `another patchloop run (pid ${holder.pid}) is writing to ${out}. Wait for it to end or stop it; ` +
          `two runs on one folder would run the same instances twice. If that run is gone, delete ${join(out, LOCK_NAME)}.`,
      );
      expect(existsSync(join(out, "preds.json"))).toBe(false);
    } finally {
      holder.kill("SIGKILL");
    }
    await new Promise((r) => holder.once("exit", r));
    // The holder is gone now (killed): its lock no longer counts.
    const r = await runBatch(options(out));
    expect(Object.values(r.statuses)).toEqual(["Submitted", "Submitted"]);
    expect(existsSync(join(out, LOCK_NAME))).toBe(false);
  });

  it("an empty lock (not a live run's: locks appear whole) is taken over", async () => {
    const out = join(tempDir(), "run");
    mkdirSync(out);
    writeFileSync(join(out, LOCK_NAME), "");
    const r = await runBatch(options(out, [], { instances: f.rows.slice(0, 1) }));
    expect(Object.values(r.statuses)).toEqual(["Submitted"]);
    expect(existsSync(join(out, LOCK_NAME))).toBe(false);
  });

  it("two runs at once on one folder: the second is refused while the first runs", async () => {
    const out = join(tempDir(), "run");
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = runBatch(
      options(out, [], {
        instances: f.rows.slice(0, 1),
        modelFor: () => new ScriptedModel([bash(FIX_COMMAND), bash(SUBMIT_COMMAND)]),
        onEvent: (e) => {
          if (e.type === "instance_start") release();
        },
      }),
    );
    await gate;
    await expect(runBatch(options(out))).rejects.toThrow(
      `another patchloop run (pid ${process.pid}) is writing to`,
    );
    await slow;
    expect(existsSync(join(out, LOCK_NAME))).toBe(false);
  });

  it("refuses to resume with another config, lists the changes, and keeps the earlier config when allowed", async () => {
    const out = join(tempDir(), "run");
    await runBatch(options(out, ["agent.step_limit=30"], { instances: f.rows.slice(0, 1) }));
    // Where the server is may change freely.
    await runBatch(
      options(out, ["agent.step_limit=30", "model.base_url=http://127.0.0.1:1/v1"], {
        instances: f.rows.slice(0, 1),
      }),
    );
    await expect(
      runBatch(options(out, ["agent.step_limit=50", "model.model_kwargs={temperature: 0.3}"])),
    ).rejects.toThrow(
      `${out} holds results of a run with another config:\n` +
        "  agent.step_limit: 30 -> 50\n" +
        "  model.model_kwargs.temperature: (unset) -> 0.3\n" +
        "Resuming would mix both in one preds.json. Use a new -o folder, or pass --allow-config-change " +
        "to continue anyway (run.json then keeps the earlier config under info.earlier_configs).",
    );
    const before = readJson<{ started_at: string; config: { agent: { step_limit: number } } }>(
      join(out, "run.json"),
    );
    const r = await runBatch(options(out, ["agent.step_limit=50"], { allowConfigChange: true }));
    expect(r.skipped).toEqual([f.rows[0].instance_id]);
    const after = readJson<{
      config: { agent: { step_limit: number } };
      info: { earlier_configs: Array<{ started_at: string; config: { agent: { step_limit: number } } }> };
    }>(join(out, "run.json"));
    expect(after.config.agent.step_limit).toBe(50);
    expect(after.info.earlier_configs).toHaveLength(1);
    expect(after.info.earlier_configs[0].started_at).toBe(before.started_at);
    expect(after.info.earlier_configs[0].config.agent.step_limit).toBe(30);
  });

  it("removes temp files that killed writers left; refuses an -o that is a file", async () => {
    const out = join(tempDir(), "run");
    const id = f.rows[0].instance_id;
    mkdirSync(join(out, id), { recursive: true });
    const stale = [
      join(out, ".preds.json.4242.0a1b2c3d.tmp"),
      join(out, id, `.${id}.traj.json.4242.deadbeef.tmp`),
    ];
    for (const p of stale) writeFileSync(p, "{half");
    writeFileSync(join(out, "notes.tmp"), "mine");
    await runBatch(options(out));
    expect(stale.map((p) => existsSync(p))).toEqual([false, false]);
    expect(readFileSync(join(out, "notes.tmp"), "utf8")).toBe("mine");

    const file = join(tempDir(), "afile");
    writeFileSync(file, "x");
    await expect(runBatch(options(file))).rejects.toThrow(
      `${file} is not a folder: give -o a folder (new or of an earlier run)`,
    );
  });
});
