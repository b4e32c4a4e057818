import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBatch } from "../../src/batch/run-batch.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  bash,
  localBatchArgs,
  localSwebenchConfig,
  parseRunFolder,
  readJson,
  trajectory,
} from "../batch/helpers.js";
import { hostProcessesWith } from "../support/engines.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  STEPWISE_CALLS,
  SUBMIT_COMMAND,
  stepwiseReply,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";

/**
 * One bad reply never stops a batch: replies with a NUL byte, with arguments nested 100,000 deep
 * or of an absurd shape, and a model that throws, each end (at most) their own instance; a batch
 * killed with SIGKILL again and again, with such replies mixed in, still ends with every instance
 * in preds.json exactly once.
 */

const CHILD = join(import.meta.dirname, "..", "batch", "fixtures", "swebench-child.mjs");
const DEEP = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;

/** Replies no model should send; each must become a format error or a tool error, nothing worse. */
const HOSTILE = [
  { name: "bash", arguments: JSON.stringify({ command: "echo a\u0000b" }) },
  { name: "bash", arguments: `{"command": ${DEEP}}` },
  { name: "str_replace_editor", arguments: JSON.stringify({ command: "view", path: "/etc/\u0000passwd" }) },
  { name: "bash", arguments: "{not json" },
  { name: "x".repeat(5000), arguments: "{}" },
];

describe("hostile replies inside a 20-instance batch", () => {
  it("each hostile reply or a model that throws ends at most its own instance; every other one is submitted", async () => {
    const f = buildFixtureInstances(tempDir(), { count: 20, repos: 2 });
    const out = join(tempDir(), "run");
    const hostileIds = new Map(f.rows.slice(0, HOSTILE.length).map((r, i) => [r.instance_id, HOSTILE[i]]));
    const throwing = f.rows[HOSTILE.length].instance_id;
    const unbuildable = f.rows[HOSTILE.length + 1].instance_id;
    const result = await runBatch({
      config: localSwebenchConfig(),
      instances: f.rows,
      outputDir: out,
      workers: 4,
      reposDir: f.reposDir,
      modelFor: (row) => {
        if (row.instance_id === unbuildable) throw new TypeError("a bug in the scaffold");
        if (row.instance_id === throwing) {
          return {
            name: "scripted",
            vision: false,
            query: async () => {
              throw new RangeError("Maximum call stack size exceeded");
            },
          };
        }
        const bad = hostileIds.get(row.instance_id);
        return new ScriptedModel([
          ...(bad ? [{ content: "bad", toolCalls: [bad] }] : []),
          bash(FIX_COMMAND),
          bash(SUBMIT_COMMAND),
        ]);
      },
    });
    const statuses = parseRunFolder(out);
    expect(statuses[throwing]).toBe("EnvironmentError");
    expect(trajectory(out, throwing).info.exit_message).toBe("Maximum call stack size exceeded");
    expect(statuses[unbuildable]).toBe("EnvironmentError");
    expect(trajectory(out, unbuildable).info.exit_message).toBe(
      "patchloop failed while running this instance: a bug in the scaffold",
    );
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    for (const row of f.rows.filter((r) => r.instance_id !== throwing && r.instance_id !== unbuildable)) {
      expect([row.instance_id, statuses[row.instance_id]]).toEqual([row.instance_id, "Submitted"]);
      expect(preds[row.instance_id].model_patch).toBe(row.patch);
    }
    for (const id of hostileIds.keys()) {
      const t = trajectory(out, id);
      expect(t.messages.some((m) => m.extra?.format_error === true || m.role === "tool")).toBe(true);
    }
    expect(result.stoppedBy).toBeNull();
    expect(Object.keys(preds)).toHaveLength(20);
  }, 240_000);
});

interface Child {
  proc: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Child {
  const proc = spawn(process.execPath, [CHILD, "swebench", ...args], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { proc, done };
}

describe("a kill -9 loop over a 20-instance batch with hostile replies mixed in", () => {
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-sec-kill-"));
    f = buildFixtureInstances(root, { count: 20, repos: 2 });
    server = await startFakeLlmServer({
      defaultBehaviour: stepwiseReply(150),
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("every instance ends Submitted, in preds.json exactly once; every file parses after every kill; nothing is left running", async () => {
    const out = join(tempDir(), "run");
    const args = [...localBatchArgs(f.datasetPath, server.url, f.reposDir), "-w", "4", "-o", out];
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      // A hostile reply goes to whichever instance asks next. At most one waits in the queue: on a
      // slow machine a round can be killed before any instance asks, and replies piled up would reach
      // one instance back to back, ending it with RepeatedFormatError (max_format_errors is 3).
      if (server.pending() === 0) {
        const bad = HOSTILE[round % HOSTILE.length];
        server.enqueue({ type: "reply", content: "bad", toolCalls: [bad] });
      }
      const child = start(args);
      await new Promise((r) => setTimeout(r, 700 + 300 * round));
      child.proc.kill("SIGKILL");
      const ended = await child.done;
      parseRunFolder(out); // throws naming a file that does not parse
      if (ended.signal === "SIGKILL") {
        kills++;
        continue;
      }
      // On a fast machine the resumed batch can finish before the kill lands: then it must have
      // finished cleanly, and there is nothing left to kill.
      expect(ended).toEqual({ code: 0, signal: null });
      break;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    const last = await start(args).done;
    expect(last.code).toBe(0);
    expect(server.pending()).toBe(0);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    expect(Object.keys(preds).sort()).toEqual(f.rows.map((r) => r.instance_id).sort());
    for (const row of f.rows) {
      const t = trajectory(out, row.instance_id);
      expect([row.instance_id, t.info.exit_status]).toEqual([row.instance_id, "Submitted"]);
      expect(t.info.model_stats.api_calls).toBeGreaterThanOrEqual(STEPWISE_CALLS);
      expect(preds[row.instance_id].model_patch).toBe(row.patch);
    }
    const yaml = readFileSync(join(out, "exit_statuses.yaml"), "utf8");
    expect(yaml.split("\n").filter((l) => l.startsWith("  - "))).toHaveLength(20);
    expect(hostProcessesWith(f.reposDir)).toEqual([]);
  }, 300_000);
});
