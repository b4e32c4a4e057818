import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { journalPathOf, readTrajectoryFile } from "../../src/agent/trajectory-journal.js";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { expectAllSubmitted, localBatchArgs, parseRunFolder, readJson } from "../batch/helpers.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { waitUntil } from "../support/wait-for.js";

const RECORDER = join(import.meta.dirname, "fixtures", "recorder-child.mjs");
const BATCH = join(import.meta.dirname, "..", "batch", "fixtures", "swebench-child.mjs");

function closed(child: ChildProcess): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => child.on("close", (_code, signal) => resolve(signal)));
}

/** Resolves when recorder-child.mjs says it saved step `step` (it prints "saved N" after each save). */
function saved(child: ChildProcess, step: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (c: Buffer) => {
      out = (out + c.toString("utf8")).slice(-200);
      const last = [...out.matchAll(/saved (\d+)\n/g)].at(-1);
      if (last && Number(last[1]) >= step) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("close", () => reject(new Error(`the recorder ended before it saved step ${step}`)));
  });
}

/** The messages recorder-child.mjs writes, in order. */
function expectedMessage(index: number): Record<string, unknown> {
  if (index === 0) return { role: "system", content: "system" };
  if (index === 1) return { role: "user", content: "task" };
  const i = Math.floor(index / 2);
  return index % 2 === 0
    ? { role: "assistant", content: `reply ${i}`, extra: { step: i } }
    : { role: "tool", tool_call_id: `c${i}`, content: `${i}:`.padEnd(10_000, "x"), extra: { step: i } };
}

describe("kill -9 while a long trajectory is being written", () => {
  it("the file always parses; file + journal is the whole record but at most the step being written", async () => {
    const dir = tempDir();
    let withJournal = 0;
    // kills at different sizes: below the journal threshold (whole rewrites, steps 1-25), past it
    // (the journal, from step 26), and past the first rewrite of a journaled file (step ~52); each
    // kill lands in the middle of a later step's save, as the child does not wait
    for (const steps of [2, 10, 20, 30, 34, 40, 46, 75]) {
      const path = join(dir, `k${steps}.traj.json`);
      const child = spawn(process.execPath, [RECORDER, path], { stdio: ["ignore", "pipe", "inherit"] });
      const done = closed(child);
      await saved(child, steps);
      child.kill("SIGKILL");
      expect(await done).toBe("SIGKILL");
      const file = JSON.parse(readFileSync(path, "utf8")) as Trajectory; // throws if it does not parse
      expect(file.trajectory_format).toBe("patchloop-1");
      if (existsSync(journalPathOf(path))) withJournal++;
      const { trajectory: merged, journal } = await readTrajectoryFile(path);
      expect(journal.dropped).toBeLessThanOrEqual(1);
      const n = merged.messages.length;
      expect(n).toBeGreaterThanOrEqual(file.messages.length);
      expect(n % 2).toBe(0); // whole steps only
      for (let i = 0; i < n; i++) expect(merged.messages[i]).toEqual(expectedMessage(i));
      expect(merged.info.model_stats.api_calls).toBe(n / 2 - 1);
      // no temp file of the atomic rewrite is left behind but the one a kill may interrupt
      expect(readdirSync(dir).filter((f) => f.startsWith(`.k${steps}.`)).length).toBeLessThanOrEqual(1);
    }
    // most kills landed while the journal was in use (past 256 KiB, the 26th step)
    expect(withJournal).toBeGreaterThanOrEqual(4);
  }, 120_000);
});

describe("kill -9 of a batch whose trajectories are journaled, then resume", () => {
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let root: string;
  const STEPS = 40;
  // steps 1..39 print 20 kB (cut to the observation limit), step 40 fixes and submits
  const COMMAND = [
    "n=$(( $(cat .git/crash_steps 2>/dev/null || echo 0) + 1 )); echo $n > .git/crash_steps",
    `if [ $n -lt ${STEPS} ]; then head -c 20000 /dev/zero | tr '\\0' y; echo; else ${FIX_COMMAND}; ${SUBMIT_COMMAND}; fi`,
  ].join("; ");

  beforeAll(async () => {
    root = tempDir("patchloop-journal-crash-");
    f = buildFixtureInstances(root, { count: 4, repos: 2 });
    server = await startFakeLlmServer({
      record: false,
      defaultBehaviour: {
        type: "reply",
        content: "step",
        toolCalls: [{ name: "bash", arguments: { command: COMMAND } }],
      },
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const start = (out: string) =>
    spawn(
      process.execPath,
      [BATCH, "swebench", ...localBatchArgs(f.datasetPath, server.url, f.reposDir), "-w", "2", "-o", out],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
  const journals = (out: string) =>
    existsSync(out)
      ? readdirSync(out).filter((id) => existsSync(journalPathOf(join(out, id, `${id}.traj.json`))))
      : [];

  it("every file parses after the kill, the journal reads back, and the re-run finishes every instance", async () => {
    const out = join(root, "run");
    const child = start(out);
    const done = closed(child);
    // three journal lines: far from the next rewrite of the file (when the journal is as large)
    const lines = (id: string) =>
      readFileSync(journalPathOf(join(out, id, `${id}.traj.json`)), "utf8").split("\n").length - 1;
    await waitUntil("an instance has journaled three steps", () =>
      journals(out).some((id) => lines(id) >= 3),
    );
    child.kill("SIGKILL");
    expect(await done).toBe("SIGKILL");
    const statuses = parseRunFolder(out); // every file parses
    const killed = journals(out);
    expect(killed.length).toBeGreaterThanOrEqual(1);
    let applied = 0;
    for (const id of killed) {
      const path = join(out, id, `${id}.traj.json`);
      const { trajectory: merged, journal } = await readTrajectoryFile(path);
      expect(journal.dropped).toBeLessThanOrEqual(1);
      expect(merged.info.exit_status).toBeNull();
      expect(merged.messages.length).toBeGreaterThanOrEqual(readJson<Trajectory>(path).messages.length);
      applied += journal.applied;
      expect(merged.messages.slice(0, 2).map((m) => m.role)).toEqual(["system", "user"]);
      expect(statuses[id]).toBeNull();
    }
    expect(applied).toBeGreaterThanOrEqual(2);

    const again = start(out);
    let stderr = "";
    again.stderr?.on("data", (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => again.on("close", (c) => resolve(c)));
    expect([code, stderr.includes("Error")]).toEqual([0, false]);
    const trajectories = expectAllSubmitted(out, f.rows, STEPS);
    for (const row of f.rows) {
      const t = trajectories.get(row.instance_id)!;
      // the finished file is the whole record: the journal is gone
      expect(existsSync(journalPathOf(join(out, row.instance_id, `${row.instance_id}.traj.json`)))).toBe(
        false,
      );
      expect(t.messages.filter((m) => m.role === "assistant")).toHaveLength(STEPS);
    }
  }, 180_000);
});

describe("the recorder's file and journal", () => {
  it("small: rewritten whole at each save; large: the journal, secrets masked in both; the end leaves the file alone", async () => {
    const { TrajectoryRecorder } = await import("../../src/agent/trajectory.js");
    const dir = tempDir();
    const path = join(dir, "t.traj.json");
    const secret = "sk-live-abcdefghijklmnop";
    const rec = new TrajectoryRecorder(
      path,
      {
        config: { k: 1 },
        versions: {},
        timing: { started_at: new Date().toISOString(), ended_at: null, wall_seconds: 0 },
      },
      { secrets: [secret] },
    );
    rec.add({ role: "system", content: "s" });
    rec.add({ role: "user", content: `key ${secret}` });
    await rec.save();
    expect(existsSync(journalPathOf(path))).toBe(false);
    expect(readFileSync(path, "utf8")).not.toContain(secret);
    for (let i = 1; i <= 40; i++) {
      rec.add({ role: "assistant", content: `r${i} ${secret}` });
      rec.add({ role: "tool", tool_call_id: `c${i}`, content: "z".repeat(10_000) });
      await rec.save();
    }
    const journal = readFileSync(journalPathOf(path), "utf8");
    expect(journal.split("\n").length - 1).toBeGreaterThan(0);
    expect(journal).not.toContain(secret);
    expect(journal).toContain("r40 ***");
    const { trajectory: merged } = await readTrajectoryFile(path);
    expect(merged.messages).toHaveLength(82);
    rec.info.exit_status = "Submitted";
    await rec.save();
    expect(existsSync(journalPathOf(path))).toBe(false);
    const text = readFileSync(path, "utf8");
    // the same text JSON.stringify(…, null, 2) gives for the scrubbed trajectory
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect(JSON.parse(text).messages[81].content).toBe("z".repeat(10_000));
    expect(JSON.parse(text).messages[80].content).toBe("r40 ***");
  });
});
