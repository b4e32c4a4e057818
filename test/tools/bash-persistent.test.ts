import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Environment } from "../../src/environments/types.js";
import type { Tool } from "../../src/tools/base/types.js";
import { createBashTool } from "../../src/tools/bash.js";
import { waitUntil } from "../support/wait-for.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

let box: Sandbox;
let tool: Tool;
beforeEach(() => {
  box = makeSandbox({ timeout: 10 });
  tool = createBashTool({ mode: "persistent", interruptGraceMs: 500 });
});
afterEach(async () => {
  await tool.close?.();
  await box.cleanup();
});

/** Whether a process is alive: present and not a zombie (PID 1 here may not reap orphans). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const run = (command: string, timeout = 10, env: Environment = box.env) =>
  tool.execute({ command }, { ...box.ctx, env, timeout });
const done = (output: string, returncode = 0) => ({ output, returncode, timedOut: false });
const lost = () =>
  `the working directory is back to ${box.dir}, and variables, functions and aliases set earlier are gone`;

describe("bash, persistent mode", () => {
  test("cd, exported and plain variables, functions and declare carry over", async () => {
    expect(await run('cd /tmp && export A=1 && B=2 && f() { echo "f:$1"; } && declare -A M=([k]=v)')).toEqual(
      done(""),
    );
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
      await run('pwd; echo "$A $B ${M[k]}"; f x; bash -c \'echo "child sees A=$A B=${B:-none}"\''),
    ).toEqual(done("/tmp\n1 2 v\nf:x\nchild sees A=1 B=none\n"));
  });

  test("output is exact: no added newline, stderr in order, UTF-8, exit statuses", async () => {
    expect(await run("printf 'no newline'")).toEqual(done("no newline"));
    expect(await run("echo next")).toEqual(done("next\n"));
    expect(await run("echo a; echo b >&2; echo c")).toEqual(done("a\nb\nc\n"));
    expect(await run("echo 'naïve – 日本'")).toEqual(done("naïve – 日本\n"));
    expect(await run("false")).toEqual(done("", 1));
    expect(await run("(exit 7)")).toEqual(done("", 7));
  });

  test("multi-line commands, heredocs, and commands that read input (they get none)", async () => {
    expect(
      await run("for i in 1 2; do\n  echo \"i=$i\"\ndone\ncat <<'EOF'\n$HOME stays literal\nEOF"),
    ).toEqual(done("i=1\ni=2\n$HOME stays literal\n"));
    expect(await run('read line; echo "got:[$line]"; cat')).toEqual(done("got:[]\n"));
    expect(await run("echo still here")).toEqual(done("still here\n"));
  });

  test("a timeout of 0 means no limit", async () => {
    expect(await run("sleep 0.3; echo waited", 0)).toEqual(done("waited\n"));
  });

  test("a syntax error is reported and the shell lives on", async () => {
    await run("export KEEP=yes");
    const r = await run("if then");
    expect(r.returncode).toBe(2);
    expect(r.output).toContain("syntax error near unexpected token `then'");
    expect(await run("echo $KEEP")).toEqual(done("yes\n"));
  });

  test("a command past the time limit is interrupted; the shell keeps its state", async () => {
    await run("cd /tmp && export KEEP=yes");
    expect(await run("echo start; sleep 20; echo never", 1)).toEqual({
      output:
        "start\n[The command timed out after 1 second and was interrupted (Ctrl-C); the output above is what it printed until then. Make it faster (a smaller input, fewer tests) or split it into steps.]",
      returncode: -1,
      timedOut: true,
    });
    expect(await run("for i in 1 2 3 4 5; do sleep 1; done; echo loop-finished", 1)).toMatchObject({
      returncode: -1,
      timedOut: true,
    });
    expect(await run("pwd; echo $KEEP")).toEqual(done("/tmp\nyes\n"));
  });

  test("a command that ignores Ctrl-C: the shell is replaced and the model is told", async () => {
    await run("export KEEP=yes");
    expect(await run("trap '' INT; echo stubborn; sleep 30", 1)).toEqual({
      output: `stubborn\n[The command timed out after 1 second and did not stop when interrupted, so the shell was killed and a new one started: ${lost()}.]`,
      returncode: -1,
      timedOut: true,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
    expect(await run('pwd; echo "${KEEP:-unset}"')).toEqual(done(`${box.dir}\nunset\n`));
  });

  test("a stopped run interrupts the command (Ctrl-C) and says why, not as a timeout", async () => {
    await run("export KEEP=yes");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const stopping = { ...box.ctx, signal: controller.signal };
    expect(await tool.execute({ command: "echo begun; sleep 20" }, stopping)).toEqual({
      output:
        "begun\n[The command was interrupted (Ctrl-C) because the agent is stopping; the output above is what it printed until then.]",
      returncode: -1,
      timedOut: false,
      interrupted: true,
    });
    expect(await run("echo $KEEP")).toEqual(done("yes\n"));
    const again = new AbortController();
    setTimeout(() => again.abort(), 300);
    const stubborn = await tool.execute(
      { command: "trap '' INT; echo stubborn; sleep 30" },
      { ...box.ctx, signal: again.signal },
    );
    expect(stubborn).toEqual({
      output: `stubborn\n[The agent is stopping, and the command did not stop when interrupted, so the shell was killed and a new one started: ${lost()}.]`,
      returncode: -1,
      timedOut: false,
      interrupted: true,
    });
  });

  test("exit gives a fresh shell and says the state was reset", async () => {
    await run("cd /tmp; export KEEP=yes");
    expect(await run("echo bye; exit 3")).toEqual({
      output: `bye\n[The shell exited with status 3 while running this command (exit, kill $$ or set -e end it), so a new shell will run your next command: ${lost()}. To leave early from a script without ending the shell, use a subshell: ( ...; exit 1 ).]`,
      returncode: 3,
      timedOut: false,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
    expect(await run('pwd; echo "${KEEP:-unset}"')).toEqual(done(`${box.dir}\nunset\n`));
  });

  test("kill $$ and set -e end the shell too", async () => {
    const killed = await run("cd /tmp; kill $$");
    expect(killed.output).toBe(
      `[The shell was killed while running this command (exit, kill $$ or set -e end it), so a new shell will run your next command: ${lost()}. To leave early from a script without ending the shell, use a subshell: ( ...; exit 1 ).]`,
    );
    expect(killed.returncode).toBe(-1);
    expect(await run("pwd")).toEqual(done(`${box.dir}\n`));
    expect((await run("set -e; false; echo not-reached")).output).toMatch(
      /^\[The shell exited with status 1 while/,
    );
    expect(await run("echo fine")).toEqual(done("fine\n"));
  });

  test("a shell that died between commands is replaced, with a note", async () => {
    const shell = Number.parseInt(
      (await run("export KEEP=yes; (sleep 0.2; kill $$) >/dev/null 2>&1 & echo $$")).output,
      10,
    );
    // gone from /proc: reaped by this process, which has then heard of its exit (the same event)
    await waitUntil(`the shell (pid ${shell}) has ended`, () => !existsSync(`/proc/${shell}`), {
      ms: 10_000,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
    expect(await run('echo "${KEEP:-unset}"')).toEqual(
      done(
        `[The shell had ended since the last command, so this one ran in a new shell starting in ${box.dir}.]\nunset\n`,
      ),
    );
  });

  test("close() ends the shell and what it started; the next command starts a new one", async () => {
    const pid = Number.parseInt((await run("sleep 300 >/dev/null 2>&1 & echo $!")).output, 10);
    expect(isRunning(pid)).toBe(true);
    await tool.close?.();
    await waitUntil(`the shell's background sleep (pid ${pid}) has ended`, () => !isRunning(pid), {
      ms: 10_000,
    });
    expect(await run("echo again")).toEqual(done("again\n"));
    await tool.close?.();
    await tool.close?.();
  });

  test("commands sent at once run one after the other", async () => {
    const [a, b] = await Promise.all([run("sleep 0.3; X=first; echo a"), run('echo "b after $X"')]);
    expect(a).toEqual(done("a\n"));
    expect(b).toEqual(done("b after first\n"));
  });

  test("long output: clipped for the model, capped in memory, and the end is still found", async () => {
    const clipped = createBashTool({ mode: "persistent", outputLimit: 100 });
    const r = await clipped.execute({ command: "seq 1 1000" }, box.ctx);
    expect(r.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.output.endsWith("999\n1000\n")).toBe(true);
    expect(r.output).toContain("[... 3793 characters left out of the middle of this output (3893 in all).");
    await clipped.close?.();
    const capped = createBashTool({ mode: "persistent", captureLimit: 1000, outputLimit: 1_000_000 });
    const big = await capped.execute({ command: "seq 1 100000; echo tail-line" }, box.ctx);
    expect(big.returncode).toBe(0);
    expect(big.output).toMatch(
      /^1\n2\n[\s\S]*\n\[\.\.\. \d+ characters of output dropped here to save memory \.\.\.\]\n[\s\S]*\n100000\ntail-line\n$/,
    );
    expect(big.output.length).toBeLessThan(1200);
    await capped.close?.();
  });

  test("where the environment cannot keep a process, it runs fresh and says so once", async () => {
    const noSpawn: Environment = { ...box.env, spawn: undefined };
    expect(await run("cd /tmp; pwd", 10, noSpawn)).toEqual(
      done(
        "/tmp\n[Note: this environment cannot keep a shell running, so every command runs in a new shell: cd and export do not carry over.]",
      ),
    );
    expect(await run("pwd", 10, noSpawn)).toEqual(done(`${box.dir}\n`));
  });

  test("describes itself as persistent", () => {
    expect(tool.description).toContain("One shell is kept for the whole task");
  });
});
