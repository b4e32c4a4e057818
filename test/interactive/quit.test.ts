import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { startPatchloop } from "../support/cli.js";
import { describeWithEngine } from "../support/engines.js";
import { git } from "../support/git-repo.js";
import { BWRAP_UNLIMITED, bash, calcTask, runArgs, type Task } from "./fixture.js";
import { cliInPty, KEY, useServerAndPty } from "./pty.js";

/**
 * Quitting at once (a second signal after the run was asked to end; on a terminal, a third Ctrl-C)
 * exits 130 and still removes the worktree the run made, so the person's repository does not keep
 * listing it, and says so. In bwrap, so that the sandbox (busy reading a huge file for the diff when
 * the second signal comes) dies with the process.
 */

const live = useServerAndPty();

/** Runs `patchloop run` in bwrap, sends SIGINT while the second command runs and again while the run ends. */
async function quitTwice(t: Task, more: string[]): Promise<{ code: number | null; stderr: string }> {
  live.server = await startFakeLlmServer();
  // the huge file keeps the end-of-run diff busy, so the second signal comes while the run is ending
  live.server.enqueue(bash("truncate -s 1T huge.bin && echo made"), bash("sleep 60"));
  const child = startPatchloop(
    [...runArgs(t, live.server, ...more), ...BWRAP_UNLIMITED, "-c", "environment.timeout=30"],
    { cwd: t.dir },
  );
  const until = async (what: () => boolean, label: string) => {
    for (let i = 0; i < 600 && !what(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(what(), `${label}\n${child.out()}\n${child.err()}`).toBe(true);
  };
  await until(() => child.out().includes('"command":"sleep 60"'), "the second command started");
  child.proc.kill("SIGINT");
  await until(() => child.err().includes("interrupted: saving the trajectory"), "the first SIGINT was taken");
  await new Promise((r) => setTimeout(r, 1000));
  child.proc.kill("SIGINT");
  return { code: (await child.done).code, stderr: child.err() };
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
    live.server = await startFakeLlmServer();
    live.server.enqueue(bash("truncate -s 1T huge.bin && echo made"), bash("sleep 60"));
    live.pty = cliInPty(
      [...runArgs(t, live.server, "--mode", "yolo"), ...BWRAP_UNLIMITED, "-c", "environment.timeout=30"],
      { cwd: t.dir },
    );
    // the sandbox's /tmp is its own: the command is seen on the screen, then given a moment to start
    await live.pty.waitFor("sleep 60", 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(2);
    // the first stops the command; at its prompt the second ends the run; the end-of-run diff meets
    // the huge file, and the third quits
    live.pty.send(KEY.ctrlC);
    await live.pty.waitFor("? The command was stopped. What now?");
    live.pty.send(KEY.ctrlC);
    await live.pty.waitFor("ending the run (Interrupted); the patch is kept");
    await new Promise((r) => setTimeout(r, 1000));
    live.pty.send(KEY.ctrlC);
    expect(await live.pty.exited).toBe(130);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(existsSync(t.worktree)).toBe(false);
    expect(live.pty.text()).toContain(
      `quit at once: the worktree ${t.worktree} is removed, and the agent's changes with it\n`,
    );
  });
});
