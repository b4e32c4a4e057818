import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOCAL_NOT_ISOLATED_WARNING } from "../../src/environments/local.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { waitUntil } from "../support/wait-for.js";
import { bashReply, fakeServer, readTrajectory, SUBMIT } from "./harness.js";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "patchloop.js");

describe("patchloop run killed with SIGKILL in the middle of a step", () => {
  it("leaves a trajectory file that parses as JSON and holds the first step", async () => {
    const dir = tempDir("patchloop-e2e-");
    const repo = join(dir, "calc");
    makeRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n" });
    const server = await fakeServer();
    server.enqueue(bashReply("echo step-one", "call_one"), {
      type: "reply",
      toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }],
      delayMs: 30_000,
    });
    const out = join(dir, "out");
    const child = spawn(
      process.execPath,
      [
        BIN,
        "run",
        "--repo",
        repo,
        "--task",
        "fix add",
        "-m",
        "openai/m",
        "--base-url",
        `${server.url}/v1`,
        "-o",
        out,
        "--quiet",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    try {
      await waitUntil("the second model request came", () => server.requests.length === 2, { ms: 30_000 });
    } finally {
      child.kill("SIGKILL");
    }
    expect(await closed).toEqual({ code: null, signal: "SIGKILL" });
    // the only thing on stderr: the local environment's warning (no error, no stack trace)
    expect(stderr).toBe(`WARNING: ${LOCAL_NOT_ISOLATED_WARNING}\n`);

    const traj = readTrajectory(join(out, "calc", "calc.traj.json"));
    expect(traj.trajectory_format).toBe("patchloop-1");
    expect(traj.info.exit_status).toBeNull();
    expect(traj.info.model_stats.api_calls).toBe(1);
    expect(traj.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(traj.messages[3]).toMatchObject({
      tool_call_id: "call_one",
      content: "<returncode>0</returncode>\n<output>\nstep-one\n\n</output>",
    });
    // only the trajectory: no half-written temp file, no preds.json before the task ends
    expect(readdirSync(join(out, "calc"))).toEqual(["calc.traj.json"]);
    // worktree/ is where the agent worked (a killed run leaves it for the person; src/interactive/workspace.ts)
    expect(readdirSync(out).filter((name) => name !== "worktree")).toEqual(["calc"]);
  });
});
