import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTAGE_LIMIT, runBatch } from "../../src/batch/run-batch.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel, type ScriptedResponse } from "../../src/models/scripted.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson, trajectory } from "./helpers.js";

const down: ScriptedResponse = {
  error: "retries_exhausted",
  message: "openai/fake: gave up after 3 tries; last error: connect ECONNREFUSED 127.0.0.1:9",
};
const solve = () => new ScriptedModel([bash(FIX_COMMAND, 0.02), bash(SUBMIT_COMMAND, 0.02)]);

describe("a model server that is down", () => {
  let f: FixtureInstances;
  beforeAll(() => {
    f = buildFixtureInstances(mkdtempSync(join(tmpdir(), "patchloop-outage-fixture-")), {
      count: 6,
      repos: 1,
    });
  });
  afterAll(() => rmSync(join(f.reposDir, ".."), { recursive: true, force: true }));

  it("stops the batch after instances in a row run out of retries, and a re-run runs them again", async () => {
    const out = join(tempDir(), "run");
    const config = localSwebenchConfig();
    // Instance 1 fails fatally (a 400: final, and it does not count as an outage), then the server goes down.
    const first = await runBatch({
      config,
      instances: f.rows,
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: (row: SwebenchInstance) =>
        row.instance_id.endsWith("-1")
          ? new ScriptedModel([
              { error: "fatal", message: "openai/fake: HTTP 400 bad request (not retried)" },
            ])
          : new ScriptedModel([down]),
    });
    expect(OUTAGE_LIMIT).toBe(3);
    expect(first.stoppedBy).toBe("model_unavailable");
    expect(first.outcomes.map((o) => [o.instance_id, o.exit_status, o.model_error?.kind])).toEqual([
      ["acme__lib0-1", "ModelError", "fatal"],
      ["acme__lib0-2", "ModelError", "retries_exhausted"],
      ["acme__lib0-3", "ModelError", "retries_exhausted"],
      ["acme__lib0-4", "ModelError", "retries_exhausted"],
    ]);
    expect(first.notStarted).toEqual(["acme__lib0-5", "acme__lib0-6"]);
    expect(first.pending).toEqual([
      "acme__lib0-2",
      "acme__lib0-3",
      "acme__lib0-4",
      "acme__lib0-5",
      "acme__lib0-6",
    ]);
    expect(trajectory(out, "acme__lib0-2").info.model_error).toEqual({ kind: "retries_exhausted" });
    expect(trajectory(out, "acme__lib0-1").info.model_error).toEqual({ kind: "fatal" });

    // The server is back: everything but the fatal one runs.
    const second = await runBatch({
      config,
      instances: f.rows,
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: () => solve(),
    });
    expect(second.stoppedBy).toBeNull();
    expect(second.skipped).toEqual(["acme__lib0-1"]);
    expect(second.outcomes.map((o) => o.exit_status)).toEqual(Array(5).fill("Submitted"));
    expect(second.pending).toEqual([]);
    expect(trajectory(out, "acme__lib0-2").info.model_error).toBeUndefined();
  });

  it("an instance the server fails on every time runs after fresh ones, and is final after 3 runs", async () => {
    const out = join(tempDir(), "run");
    const rows = f.rows.slice(0, 3);
    const failing = rows[0].instance_id;
    const order: string[][] = [];
    const run = async (subset: typeof rows) => {
      const started: string[] = [];
      const r = await runBatch({
        config: localSwebenchConfig(),
        instances: subset,
        outputDir: out,
        reposDir: f.reposDir,
        modelFor: (row: SwebenchInstance) =>
          row.instance_id === failing ? new ScriptedModel([down]) : solve(),
        onEvent: (e) => {
          if (e.type === "instance_start") started.push(e.instance_id);
        },
      });
      order.push(started);
      return r;
    };
    await run(rows.slice(0, 1));
    // Run 2: the two fresh instances go first, the failing one last.
    const second = await run(rows);
    expect(order[1]).toEqual([rows[1].instance_id, rows[2].instance_id, failing]);
    expect(second.pending).toEqual([failing]);
    const third = await run(rows);
    expect(third.pending).toEqual([failing]);
    expect(
      readJson<{ instances: Record<string, { model_error_runs?: number }> }>(join(out, "run.json")).instances[
        failing
      ],
    ).toMatchObject({ model_error_runs: 3 });
    // Run 4: three runs in a row failed on it: its ModelError is final, nothing runs, exit 0 material.
    const fourth = await run(rows);
    expect(order[3]).toEqual([]);
    expect([...fourth.skipped].sort()).toEqual(rows.map((r) => r.instance_id).sort());
    expect(fourth.pending).toEqual([]);
    expect(readFileSync(join(out, "run.log"), "utf8")).toContain(
      `${failing}: the model server failed on it in 3 runs in a row; its ModelError is now final (--redo-existing runs it again)`,
    );
  });

  it("the cost cap counts what earlier attempts of a re-run instance spent", async () => {
    const out = join(tempDir(), "run");
    const [a, b] = f.rows;
    // Each attempt of A costs $5 and then the server fails (retries exhausted): A runs again next time.
    const modelFor = (row: SwebenchInstance) =>
      row.instance_id === a.instance_id ? new ScriptedModel([bash("true", 5), down]) : solve();
    const batch = (instances: SwebenchInstance[], costLimit?: number) =>
      runBatch({
        // No per-instance cost limit: only the batch cap is under test.
        config: localSwebenchConfig(["agent.cost_limit=0"]),
        instances,
        outputDir: out,
        reposDir: f.reposDir,
        modelFor,
        costLimit,
      });
    await batch([a]);
    await batch([a]);
    const record = readJson<{ instances: Record<string, { cost: number; earlier_cost?: number }> }>(
      join(out, "run.json"),
    ).instances[a.instance_id];
    expect(record).toMatchObject({ cost: 5, earlier_cost: 5 });
    // $10 spent on A so far: B (fresh, first) brings it to $10.04, past the cap; A does not start again.
    const third = await batch([a, b], 10.02);
    expect(third.outcomes.map((o) => o.instance_id)).toEqual([b.instance_id]);
    expect(third.notStarted).toEqual([a.instance_id]);
    expect(third.stoppedBy).toBe("cost_limit");
  });

  it("an instance that succeeds between failures resets the count", async () => {
    const out = join(tempDir(), "run");
    const result = await runBatch({
      config: localSwebenchConfig(),
      instances: f.rows,
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: (row: SwebenchInstance) =>
        row.instance_id.endsWith("-3") || row.instance_id.endsWith("-6")
          ? solve()
          : new ScriptedModel([down]),
    });
    expect(result.stoppedBy).toBeNull();
    expect(result.statuses).toEqual({
      "acme__lib0-1": "ModelError",
      "acme__lib0-2": "ModelError",
      "acme__lib0-3": "Submitted",
      "acme__lib0-4": "ModelError",
      "acme__lib0-5": "ModelError",
      "acme__lib0-6": "Submitted",
    });
    expect(result.pending).toEqual(["acme__lib0-1", "acme__lib0-2", "acme__lib0-4", "acme__lib0-5"]);
  });
});
