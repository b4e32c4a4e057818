import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

let box: Sandbox;
beforeAll(() => {
  box = makeSandbox({ timeout: 10 });
});
afterAll(() => box.cleanup());

const SEE_ALL =
  "To see all of it, write it to a file (command > out.txt 2>&1) and read parts with head, tail, grep -n or sed -n.";

describe("bash, fresh mode", () => {
  const tool = createBashTool();
  const run = (command: string, timeout = 10) => tool.execute({ command }, { ...box.ctx, timeout });

  test("runs in the task's directory; cd and export do not carry over", async () => {
    expect(await run("cd / && export X=1 && pwd")).toEqual({ output: "/\n", returncode: 0, timedOut: false });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
    expect(await run('pwd; echo "X=${X:-unset}"')).toEqual({
      output: `${box.dir}\nX=unset\n`,
      returncode: 0,
      timedOut: false,
    });
  });

  test("standard error is included; the exit status is the command's; output is exact", async () => {
    const r = await run("echo out; echo err >&2; exit 3");
    expect(r.returncode).toBe(3);
    expect(r.output.split("\n").sort()).toEqual(["", "err", "out"]);
    expect((await run("printf 'no newline – 日本'")).output).toBe("no newline – 日本");
    expect((await run("cat")).output).toBe("");
  });

  test("a command past the time limit is stopped and keeps what it printed", async () => {
    expect(await run("echo start; sleep 20; echo never", 1)).toEqual({
      output:
        "start\n[The command timed out after 1 second and was stopped; the output above is what it printed until then. Make it faster (a smaller input, fewer tests) or split it into steps.]",
      returncode: -1,
      timedOut: true,
    });
  });

  test("long output keeps its head and tail", async () => {
    const small = createBashTool({ outputLimit: 100 });
    const full = Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join("");
    const r = await small.execute({ command: "seq 1 1000" }, box.ctx);
    expect(r.output).toBe(
      `${full.slice(0, 50)}\n[... 3793 characters left out of the middle of this output (3893 in all). ${SEE_ALL} ...]\n${full.slice(-50)}`,
    );
  });

  test("bad arguments are errors, not throws", async () => {
    expect(await tool.execute({}, box.ctx)).toEqual({
      output: "Missing argument command: the bash command to run.",
      returncode: 1,
    });
    expect(await tool.execute({ command: "  \n" }, box.ctx)).toEqual({
      output: "command is empty; give the bash command to run.",
      returncode: 1,
    });
    expect(await tool.execute({ command: ["ls"] }, box.ctx)).toEqual({
      output: 'command must be a string (the bash command to run); got ["ls"] (an array).',
      returncode: 1,
    });
    expect(await tool.execute({ command: "ls", timeout: 5 }, box.ctx)).toEqual({
      output: 'bash does not know the argument "timeout". Its arguments are: command.',
      returncode: 1,
    });
  });

  test("a stopped run interrupts the command and says why", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await tool.execute(
      { command: "echo begun; sleep 20" },
      { ...box.ctx, signal: controller.signal },
    );
    expect(r).toEqual({
      output:
        "begun\n[The command was stopped because the agent is stopping; the output above is what it printed until then.]",
      returncode: -1,
      timedOut: false,
      interrupted: true,
    });
  });

  test("describes itself as fresh", () => {
    expect(tool.description).toContain("Every call starts a new shell");
    expect(tool.parameters).toEqual({
      type: "object",
      properties: { command: { type: "string", description: "The bash command to run." } },
      required: ["command"],
      additionalProperties: false,
    });
  });
});
