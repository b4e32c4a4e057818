import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { git } from "../support/git-repo.js";
import { waitUntil } from "../support/wait-for.js";
import { bash, calcTask, replace, runArgs, SUBMIT_COMMAND } from "./fixture.js";
import { BIN } from "./pty.js";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
/** A tmux server of this test file's own (its socket name), so a person's sessions are never touched. */
const SOCKET = `patchloop-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The screen as the person sees it now. */
const screen = () => tmux("capture-pane", "-p", "-t", "person");

/** Waits until the screen shows `what`; returns the screen then. */
async function untilScreen(what: string, ms = 20_000): Promise<string> {
  let now = "";
  const look = () => {
    now = screen();
    return now.includes(what);
  };
  await waitUntil(`the screen shows ${JSON.stringify(what)}`, look, { ms, everyMs: 100, shows: () => now });
  return now;
}

let server: FakeLlmServer | undefined;
afterEach(async () => {
  if (hasTmux) spawnSync("tmux", ["-L", SOCKET, "kill-server"]);
  await server?.close();
  server = undefined;
});

// CI installs tmux (.ci/run); on a machine without it this test cannot run at all.
describe.skipIf(!hasTmux)("a person at a terminal (tmux): patchloop run against the fake server", () => {
  it("shows each action, takes keys, shows the patch, and applies it when asked", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(
      bash("ls", "Let me look around."),
      replace(join(t.worktree, "calc.py"), "a - b", "a + b"),
      bash(SUBMIT_COMMAND),
    );
    const command = [process.execPath, BIN, ...runArgs(t, server)].map(quote).join(" ");
    tmux(
      "new-session",
      "-d",
      "-s",
      "person",
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      t.dir,
      `${command}; echo "EXITED $?"; sleep 120`,
    );
    let now = await untilScreen("Run this action?");
    expect(now).toContain("mode: confirm (each action waits for your answer)");
    expect(now).toMatch(
      /STEP 1\nTHOUGHT\nLet me look around\.\nACTION\nls\n\? Run this action\?\n❯ Run it\n/,
    );
    tmux("send-keys", "-t", "person", "Enter");
    now = await untilScreen(`ACTION str_replace_editor str_replace ${t.worktree}/calc.py`);
    now = await untilScreen("Run this action?");
    expect(now).toContain("✔ Run this action? Run it");
    expect(now).toContain("calc.py\n");
    expect(now).toContain(" def add(a, b):\n-    return a - b\n+    return a + b\n");
    // yolo from here: the submission runs without a question
    tmux("send-keys", "-t", "person", "Down", "Down", "Down", "Enter");
    now = await untilScreen("What should become of the patch?");
    expect(now).toContain("mode: yolo (actions run without asking; Ctrl-C gives you a prompt)");
    expect(now).toContain("EXIT: Submitted the agent submitted its work");
    expect(now).toMatch(/PATCH \(8 lines\)\ndiff --git a\/calc\.py b\/calc\.py\n/);
    expect(now).toContain("❯ Apply it to your tree");
    tmux("send-keys", "-t", "person", "Enter");
    now = await untilScreen("EXITED 0");
    expect(now).toContain(`applied to ${t.repo} (the files are changed; nothing is staged)`);
    expect(readFileSync(join(t.repo, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    expect(git(t.repo, "diff", "--cached", "--name-only")).toBe("");
  });
});
