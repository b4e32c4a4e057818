import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  buildFixtureInstances,
  type FixtureInstances,
  STEPWISE_CALLS,
  stepwiseReply,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { waitUntil } from "../support/wait-for.js";
import {
  expectAllSubmitted,
  localBatchArgs,
  parseRunFolder,
  readJson,
  trajectory,
  workRootsOf,
} from "./helpers.js";

const CHILD = join(import.meta.dirname, "fixtures", "swebench-child.mjs");

interface Child {
  proc: ChildProcess;
  /** Resolves as soon as its stderr holds `text` (on the chunk that brings it); rejects if it ends first. */
  printed: (text: string) => Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function start(args: string[]): Child {
  const proc = spawn(process.execPath, [CHILD, "swebench", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let closed = false;
  const watchers: Array<{ text: string; seen: () => void; ended: (e: Error) => void }> = [];
  const missing = (text: string) =>
    new Error(`the child ended without printing ${JSON.stringify(text)}; its stderr:\n${stderr}`);
  proc.stdout?.on("data", (d) => {
    stdout += d;
  });
  proc.stderr?.on("data", (d) => {
    stderr += d;
    for (const w of watchers) if (stderr.includes(w.text)) w.seen();
  });
  proc.on("close", () => {
    closed = true;
    for (const w of watchers) if (!stderr.includes(w.text)) w.ended(missing(w.text));
  });
  const printed = (text: string) =>
    new Promise<void>((seen, ended) => {
      if (stderr.includes(text)) seen();
      else if (closed) ended(missing(text));
      else watchers.push({ text, seen, ended });
    });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => proc.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { proc, printed, done };
}

/** Ids whose trajectory has a final (not re-run) exit status. */
function finalIds(out: string): string[] {
  return Object.entries(parseRunFolder(out))
    .filter(([, st]) => st !== null && st !== "Interrupted" && st !== "EnvironmentError")
    .map(([id]) => id)
    .sort();
}

function predCount(out: string): number {
  try {
    return Object.keys(readJson<object>(join(out, "preds.json"))).length;
  } catch {
    return 0;
  }
}

/** Instances currently mid-task: a trajectory with a model reply and no exit status yet. */
function midTask(out: string): string[] {
  return Object.entries(parseRunFolder(out))
    .filter(([id, st]) => st === null && trajectory(out, id).messages.length > 2)
    .map(([id]) => id);
}

describe("crash safety: a batch in a child process killed with SIGKILL or interrupted with SIGINT", () => {
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-batch-crash-"));
    f = buildFixtureInstances(root, { count: 6, repos: 2 });
    server = await startFakeLlmServer({
      defaultBehaviour: stepwiseReply(250),
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const args = (out: string, workers = 2) => [
    ...localBatchArgs(f.datasetPath, server.url, f.reposDir),
    "-w",
    String(workers),
    "-o",
    out,
  ];

  /** Instance id of each request made since `from` (the task text names it). */
  const requestedIds = (from: number) =>
    server.requests
      .slice(from)
      .map((r) => /Instance (acme__lib\d-\d):/.exec(JSON.stringify(r.body))?.[1] ?? "?");

  function expectAllDone(out: string) {
    expectAllSubmitted(out, f.rows, STEPWISE_CALLS);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    expect(Object.keys(preds)).toHaveLength(f.rows.length);
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(
      `Submitted:\n${f.rows
        .map((r) => `  - ${r.instance_id}\n`)
        .sort()
        .join("")}`,
    );
  }

  it("after kill -9 every file parses; resuming runs each unfinished instance and never a finished one", async () => {
    const out = join(tempDir(), "run");
    const killed: number[] = [];
    const kills: Array<(out: string) => boolean> = [(o) => predCount(o) >= 2, (o) => midTask(o).length > 0];
    for (const when of kills) {
      const before = finalIds(out);
      const mark = server.requests.length;
      const child = start(args(out));
      await waitUntil("the moment to kill", () => when(out));
      child.proc.kill("SIGKILL");
      const ended = await child.done;
      expect(ended.signal).toBe("SIGKILL");
      killed.push(child.proc.pid as number);
      parseRunFolder(out); // throws naming any file that does not parse
      expect(requestedIds(mark).filter((id) => before.includes(id))).toEqual([]);
    }
    const before = finalIds(out);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);
    const mark = server.requests.length;
    const last = await start(args(out)).done;
    expect([last.code, last.stderr]).toEqual([0, expect.any(String)]);
    const after = requestedIds(mark);
    expect(after.filter((id) => before.includes(id))).toEqual([]);
    for (const row of f.rows.filter((r) => !before.includes(r.instance_id))) {
      expect(after.filter((id) => id === row.instance_id)).toHaveLength(STEPWISE_CALLS);
    }
    expectAllDone(out);
    // The killed processes' work trees were swept by the next run.
    for (const pid of killed) expect(workRootsOf(tmpdir(), pid)).toEqual([]);
  });

  it("Ctrl-C: running instances stop and save as Interrupted, nothing new starts; they run again on resume", async () => {
    const out = join(tempDir(), "run");
    const child = start(args(out));
    await waitUntil(
      "an instance finished and one is mid-task",
      () => predCount(out) >= 1 && midTask(out).length > 0,
    );
    child.proc.kill("SIGINT");
    const first = await child.done;
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      "interrupted: no new instances start; the running ones stop and save as Interrupted",
    );
    expect(first.stdout).toContain("stopped early: interrupted.");
    const statuses = parseRunFolder(out);
    const interrupted = Object.keys(statuses).filter((id) => statuses[id] === "Interrupted");
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    expect(Object.values(statuses).every((st) => st === "Submitted" || st === "Interrupted")).toBe(true);
    expect(Object.keys(statuses).length).toBeLessThan(6);
    expect(readJson<{ state: string; stopped_by: string }>(join(out, "run.json"))).toMatchObject({
      state: "interrupted",
      stopped_by: "interrupted",
    });
    expect(Object.keys(readJson<object>(join(out, "preds.json"))).sort()).toEqual(
      Object.keys(statuses).sort(),
    );

    const submitted = Object.keys(statuses).filter((id) => statuses[id] === "Submitted");
    const mark = server.requests.length;
    const second = await start(args(out)).done;
    expect(second.code).toBe(0);
    const after = requestedIds(mark);
    expect(after.filter((id) => submitted.includes(id))).toEqual([]);
    for (const id of interrupted) expect(after.filter((x) => x === id)).toHaveLength(STEPWISE_CALLS);
    expectAllDone(out);
  });

  it("a second Ctrl-C exits at once with status 130, every file still valid", async () => {
    const out = join(tempDir(), "run");
    const child = start(args(out, 3));
    await waitUntil("an instance is mid-task", () => midTask(out).length > 0);
    child.proc.kill("SIGINT");
    // the first was handled (two signals sent at once may arrive as one)
    await child.printed("interrupted: no new instances start");
    child.proc.kill("SIGINT");
    const ended = await child.done;
    expect(ended.code).toBe(130);
    expect(ended.stderr).toContain("second interrupt: exiting now");
    parseRunFolder(out);
    expect(existsSync(join(out, "preds.json"))).toBe(true);
    const again = await start(args(out, 3)).done;
    expect(again.code).toBe(0);
    expectAllDone(out);
  });

  it("a reader of its output that goes away (| head) does not stop the batch", async () => {
    const out = join(tempDir(), "run");
    const bin = join(import.meta.dirname, "..", "..", "bin", "patchloop.js");
    const proc = spawn(process.execPath, [bin, "swebench", ...args(out, 3)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Both pipes close after the first line on stderr, as `2>&1 | head -1` would.
    proc.stderr?.once("data", () => {
      proc.stderr?.destroy();
      proc.stdout?.destroy();
    });
    const code = await new Promise<number | null>((resolve) => proc.on("close", (c) => resolve(c)));
    expect(code).toBe(0);
    expect(readJson<{ state: string }>(join(out, "run.json")).state).toBe("finished");
    expectAllDone(out);
  });
});
