import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { describeWithEngine } from "../support/engines.js";
import { git } from "../support/git-repo.js";
import { bash, calcTask, runArgs, type Task } from "./fixture.js";
import { BIN, cliInPty, KEY, type Pty } from "./pty.js";

/**
 * Quitting at once (a second signal after the run was asked to end; on a terminal, a third Ctrl-C)
 * exits 130 and still removes the worktree the run made, so the person's repository does not keep
 * listing it, and says so. In bwrap, so that the sandbox (busy reading a huge file for the diff when
 * the second signal comes) dies with the process.
 */

let server: FakeLlmServer | undefined;
let pty: Pty | undefined;
afterEach(async () => {
  pty?.kill();
  pty = undefined;
  await server?.close();
  server = undefined;
});

/** Runs `patchloop run` in bwrap, sends SIGINT while the second command runs and again while the run ends. */
async function quitTwice(t: Task, more: string[]): Promise<{ code: number | null; stderr: string }> {
  server = await startFakeLlmServer();
  // the huge file keeps the end-of-run diff busy, so the second signal comes while the run is ending
  server.enqueue(bash("truncate -s 1T huge.bin && echo made"), bash("sleep 60"));
  const child = spawn(
    process.execPath,
    [
      BIN,
      ...runArgs(t, server, ...more),
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
  child.kill("SIGINT");
  await until(() => stderr.includes("interrupted: saving the trajectory"), "the first SIGINT was taken");
  await new Promise((r) => setTimeout(r, 1000));
  child.kill("SIGINT");
  return { code: await closed, stderr };
}

describeWithEngine("bwrap", "quitting patchloop run at once", () => {
  it("a second SIGINT exits 130, removes the worktree and its registration, and says so", async () => {
    const t = calcTask();
    const { code, stderr } = await quitTwice(t, []);
    expect(code).toBe(130);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(existsSync(t.worktree)).toBe(false);
    expect(existsSync(join(t.out, "worktree"))).toBe(false);
    expect(stderr).toContain(
      `quit at once: the worktree ${t.worktree} is removed, and the agent's changes with it\n`,
    );
    const admin = join(t.repo, ".git", "worktrees");
    expect(existsSync(admin) ? readdirSync(admin) : []).toEqual([]);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
  });

  it("--in-place: a second SIGINT exits 130 and says the tree was not checked, and how to list what may remain", async () => {
    const t = calcTask();
    const { code, stderr } = await quitTwice(t, ["--in-place"]);
    expect(code).toBe(130);
    expect(stderr).toContain(
      `quit at once: the agent's changes stay in ${t.repo}; the tree was not compared with its state at the start, ` +
        "so files the agent wrote outside the patch (ignored ones included) may remain: " +
        `git -C ${t.repo} status --ignored lists them\n`,
    );
    expect(git(t.repo, "status", "--porcelain")).toBe("?? huge.bin\n");
    expect(git(t.repo, "diff", "--cached", "--name-only")).toBe("");
  });

  it("on a terminal, a third Ctrl-C exits 130 and removes the worktree, and says so", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(bash("truncate -s 1T huge.bin && echo made"), bash("sleep 60"));
    pty = cliInPty(
      [
        ...runArgs(t, server, "--mode", "yolo"),
        "--environment",
        "bwrap",
        "-c",
        "environment.memory=null",
        "-c",
        "environment.pids_limit=null",
        "-c",
        "environment.timeout=30",
      ],
      { cwd: t.dir },
    );
    // the sandbox's /tmp is its own: the command is seen on the screen, then given a moment to start
    await pty.waitFor("sleep 60", 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(2);
    // the first stops the command; at its prompt the second ends the run; the end-of-run diff meets
    // the huge file, and the third quits
    pty.send(KEY.ctrlC);
    await pty.waitFor("? The command was stopped. What now?");
    pty.send(KEY.ctrlC);
    await pty.waitFor("ending the run (Interrupted); the patch is kept");
    await new Promise((r) => setTimeout(r, 1000));
    pty.send(KEY.ctrlC);
    expect(await pty.exited).toBe(130);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(existsSync(t.worktree)).toBe(false);
    expect(pty.text()).toContain(
      `quit at once: the worktree ${t.worktree} is removed, and the agent's changes with it\n`,
    );
  });
});
