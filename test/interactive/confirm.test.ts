import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { git } from "../support/git-repo.js";
import {
  bash,
  calcTask,
  patchloopBranches,
  replace,
  requestText,
  runArgs,
  SUBMIT_COMMAND,
  treeState,
} from "./fixture.js";
import { cliInPty, KEY, type Pty } from "./pty.js";

let server: FakeLlmServer | undefined;
let pty: Pty | undefined;
afterEach(async () => {
  pty?.kill();
  pty = undefined;
  await server?.close();
  server = undefined;
});

const QUESTION = "? Run this action?";

describe("patchloop run --mode confirm in a terminal", () => {
  it("runs, rejects with a message the model receives, edits a command, switches to yolo, and applies the patch at the end", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(
      // a retry wait first: the console says so
      { type: "error", status: 503, body: { error: { message: "busy" } } },
      bash("ls", "Look first."),
      replace(join(t.worktree, "calc.py"), "a - b", "a * b"),
      bash("echo one"),
      replace(join(t.worktree, "calc.py"), "a - b", "a + b"),
      bash(SUBMIT_COMMAND),
    );
    const before = treeState(t.repo);
    pty = cliInPty(
      runArgs(t, server, "-c", "model.retry={max_tries: 2, initial_delay: 0.1, max_delay: 0.1}"),
      {
        cwd: t.dir,
      },
    );
    await pty.waitFor("mode: confirm (each action waits for your answer)");
    await pty.waitFor("RETRY model call 1, try 1 of 2 failed: HTTP 503: busy; next try in 0.1 s");
    // 1. run it
    await pty.waitFor(QUESTION);
    expect(pty.text()).toContain("STEP 1\nTHOUGHT\nLook first.\nACTION\nls\n");
    pty.send(KEY.enter);
    await pty.waitFor("OBSERVATION\n<returncode>0</returncode>\n<output>\nREADME.md\ncalc.py\n");
    // 2. the edit is shown as a diff of the file; reject it with a message
    await pty.waitFor(QUESTION);
    expect(pty.text()).toContain(
      `ACTION str_replace_editor str_replace ${t.worktree}/calc.py\n--- ${t.worktree}/calc.py\n+++ ${t.worktree}/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a * b\n`,
    );
    pty.send(KEY.down + KEY.enter);
    await pty.waitFor("? Your message to the model:");
    pty.send(`multiplying is wrong too${KEY.enter}`);
    await pty.waitFor("STEP 3");
    expect(requestText(server, 3)).toContain(
      "Not run: the person at the keyboard rejected this action. Their message:\\nmultiplying is wrong too",
    );
    expect(readFileSync(join(t.worktree, "calc.py"), "utf8")).toContain("a - b");
    // 3. edit the command, then it runs as edited and the model is told
    await pty.waitFor(QUESTION);
    pty.send(KEY.down + KEY.down + KEY.enter);
    await pty.waitFor("? Edit the command:");
    pty.send(`${KEY.end} two${KEY.enter}`);
    await pty.waitFor("ACTION (edited)\necho one two\n");
    await pty.waitFor("one two");
    await pty.waitFor("STEP 4");
    expect(requestText(server, 4)).toContain(
      "[The person at the keyboard edited your action before it ran; it ran as:\\necho one two\\n]\\none two",
    );
    // 4. switch to yolo: this action and the submission run without a question
    await pty.waitFor(QUESTION);
    pty.send(KEY.down + KEY.down + KEY.down + KEY.enter);
    await pty.waitFor("mode: yolo (actions run without asking; Ctrl-C gives you a prompt)");
    await pty.waitFor("EXIT: Submitted");
    const all = pty.text();
    expect(all.slice(all.lastIndexOf("mode: yolo"), all.indexOf("EXIT: Submitted"))).not.toContain(QUESTION);
    // 5. the end: the patch, and the choice to apply it to the tree
    await pty.waitFor("PATCH (");
    await pty.waitFor("+    return a + b");
    await pty.waitFor("? What should become of the patch?");
    expect(treeState(t.repo)).toEqual(before);
    pty.send(KEY.enter);
    await pty.waitFor(`applied to ${t.repo} (the files are changed; nothing is staged)`);
    expect(await pty.exited).toBe(0);
    expect(readFileSync(join(t.repo, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    expect(git(t.repo, "status", "--porcelain")).toBe(" M calc.py\n");
    expect(git(t.repo, "diff", "--cached", "--name-only")).toBe("");
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(patchloopBranches(t.repo)).toEqual([]);
    expect(existsSync(join(t.out, "worktree"))).toBe(false);
    const patch = readFileSync(join(t.out, "calc", "calc.patch"), "utf8");
    expect(patch).toContain("-    return a - b\n+    return a + b\n");
    expect(server.pending()).toBe(0);
  });
});
