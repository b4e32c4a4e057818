import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { describeWithEngine } from "../support/engines.js";
import { git } from "../support/git-repo.js";
import { bash, calcTask, runArgs } from "./fixture.js";
import { BIN } from "./pty.js";

/**
 * Quitting at once (a second signal after the run was asked to end; on a terminal, a third Ctrl-C)
 * exits 130 and still removes the worktree the run made, so the person's repository does not keep
 * listing it, and says so. In bwrap, so that the sandbox (busy reading a huge file for the diff when
 * the second signal comes) dies with the process.
 */

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describeWithEngine("bwrap", "quitting patchloop run at once", () => {
  it("a second SIGINT exits 130, removes the worktree and its registration, and says so", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    // the huge file keeps the end-of-run diff busy, so the second signal comes while the run is ending
    server.enqueue(bash("truncate -s 1T huge.bin && echo made"), bash("sleep 60"));
    const child = spawn(
      process.execPath,
      [
        BIN,
        ...runArgs(t, server),
        "--environment",
        "bwrap",
        "-c",
        "environment.memory=null",
        "-c",
        "environment.pids_limit=null",
        "-c",
        "environment.timeout=30",
      ],
      { cwd: t.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const closed = new Promise<number | null>((done) => child.on("close", done));
    const until = async (what: () => boolean, label: string) => {
      for (let i = 0; i < 600 && !what(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(what(), `${label}\n${stdout}\n${stderr}`).toBe(true);
    };
    await until(() => stdout.includes('"command":"sleep 60"'), "the second command started");
    expect(existsSync(t.worktree)).toBe(true);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(2);
    child.kill("SIGINT");
    await until(() => stderr.includes("interrupted: saving the trajectory"), "the first SIGINT was taken");
    await new Promise((r) => setTimeout(r, 1000));
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(existsSync(t.worktree)).toBe(false);
    expect(existsSync(join(t.out, "worktree"))).toBe(false);
    expect(stderr).toContain(
      `quit at once: the worktree ${t.worktree} is removed, and the agent's changes with it\n`,
    );
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    const admin = join(t.repo, ".git", "worktrees");
    expect(existsSync(admin) ? readdirSync(admin) : []).toEqual([]);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
  });
});
