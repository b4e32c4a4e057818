import { describe, expect, it } from "vitest";
import { createBackticksProtocol } from "../../src/agent/protocols/backticks.js";
import { createToolCallsProtocol } from "../../src/agent/protocols/tool-calls.js";
import { Keyboard } from "../../src/interactive/keyboard.js";
import { resolveMode } from "../../src/interactive/modes.js";
import { personMessage } from "../../src/interactive/person-reply.js";

const BASH = {
  name: "bash",
  description: "run",
  parameters: { type: "object", properties: { command: { type: "string" } } },
};

describe("human mode: the person's command as a reply each protocol reads as that command", () => {
  const command = "grep -n 'a - b' calc.py\necho done";
  it("tool_calls: a bash call; backticks: one fenced block; a mini-style XML action_regex: the tag", () => {
    const tools = personMessage(createToolCallsProtocol([BASH]), "mswea_bash_command", command, 3);
    expect(tools?.tool_calls).toEqual([
      {
        id: "person-3",
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command }) },
      },
    ]);
    const fenced = personMessage(
      createBackticksProtocol("mswea_bash_command", null),
      "mswea_bash_command",
      command,
      1,
    );
    expect(fenced?.content).toBe(`\`\`\`mswea_bash_command\n${command}\n\`\`\``);
    const xml = personMessage(
      createBackticksProtocol("mswea_bash_command", "<mswea_bash_command>(.*?)</mswea_bash_command>"),
      "mswea_bash_command",
      command,
      1,
    );
    expect(xml?.content).toBe(`<mswea_bash_command>\n${command}\n</mswea_bash_command>`);
    // an action_regex no form can satisfy: human mode says it is not available
    expect(personMessage(createBackticksProtocol("x", "^RUN: (\\S+)$"), "x", command, 1)).toBeNull();
  });
});

describe("Ctrl-C", () => {
  it("first stops the call, a second before the prompt ends the run, a third quits at once", async () => {
    const run = new AbortController();
    const said: string[] = [];
    let quit = 0;
    const keys = new Keyboard(
      run,
      (l) => said.push(l),
      () => quit++,
    );
    const stopped = keys.call(
      (signal) =>
        new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("stopped"))),
    );
    keys.press();
    expect(await stopped).toEqual({ value: "stopped", interrupted: true });
    expect(run.signal.aborted).toBe(false);
    keys.press();
    expect(run.signal.aborted).toBe(true);
    keys.press();
    expect(quit).toBe(1);
    expect(said).toEqual([
      "Ctrl-C: stopping this call; you get a prompt next (Ctrl-C again ends the run).",
      "Ctrl-C again: ending the run (Interrupted; the patch is kept). Ctrl-C once more quits at once.",
    ]);
  });

  it("during a command, the Ctrl-C line names the command", async () => {
    const said: string[] = [];
    const keys = new Keyboard(
      new AbortController(),
      (l) => said.push(l),
      () => {},
    );
    const stopped = keys.call(
      (signal) =>
        new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("stopped"))),
      "command",
    );
    keys.press();
    expect(await stopped).toEqual({ value: "stopped", interrupted: true });
    expect(said).toEqual([
      "Ctrl-C: stopping this command; you get a prompt next (Ctrl-C again ends the run).",
    ]);
  });

  it("between calls asks for the prompt; answering a prompt makes the next Ctrl-C a first one again", () => {
    const run = new AbortController();
    const keys = new Keyboard(
      run,
      () => {},
      () => {},
    );
    keys.press();
    expect(keys.takePending()).toBe(true);
    expect(keys.takePending()).toBe(false);
    keys.settled();
    keys.press();
    expect(run.signal.aborted).toBe(false);
  });
});

describe("--mode", () => {
  it("defaults to confirm on a terminal and yolo otherwise; a mode that asks needs a terminal", () => {
    expect([resolveMode(undefined, true), resolveMode(undefined, false), resolveMode("yolo", false)]).toEqual(
      ["confirm", "yolo", "yolo"],
    );
    expect(() => resolveMode("confirm", false)).toThrow(
      "--mode confirm asks a person at a terminal, but stdin or stdout is not one; run it in a terminal, or use --mode yolo",
    );
    expect(() => resolveMode("auto", true)).toThrow(
      "--mode auto: not a mode; give one of confirm, yolo, human",
    );
  });
});
