import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBackticksProtocol } from "../../src/agent/protocols/backticks.js";
import type { Action } from "../../src/agent/protocols/types.js";
import { createPrinter } from "../../src/cli/printer.js";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { renderAction } from "../../src/interactive/action-view.js";
import { Keyboard } from "../../src/interactive/keyboard.js";
import type { Ask } from "../../src/interactive/prompts.js";
import { InteractiveSession } from "../../src/interactive/session.js";
import { toldFrom } from "../../src/interactive/told.js";
import { tempDir } from "../support/tmp.js";

/**
 * Control sequences a model (or a server, or a file it wrote) puts in its text reach the live
 * `run` console as visible text, never as commands to the terminal: the printer and the
 * interactive views neutralise them as `show` does (ESC as ^[, CSI U+009B as M-^[).
 */

/** Clears the screen, sets the window title, and a hyperlink: what a hostile reply would send. */
const EVIL = "\x1b[2J\x1b]0;owned\x07\x9b31m\x1b]8;;http://x\x1b\\y";
const SHOWN = "^[[2J^[]0;owned^GM-^[31m^[]8;;http://x^[\\y";

function printed(events: Parameters<ReturnType<typeof createPrinter>>[0][]): string {
  let out = "";
  const print = createPrinter((s) => (out += s), false);
  for (const e of events) print(e);
  return out;
}

describe("the live run console", () => {
  it("shows every text of the model, its tools and the server with control characters neutralised", () => {
    const out = printed([
      { type: "message", step: 0, message: { role: "user", content: `task ${EVIL}` } },
      {
        type: "reply",
        step: 1,
        message: {
          role: "assistant",
          content: `thinking ${EVIL}\n\`\`\`mswea_bash_command\necho ${EVIL}\n\`\`\`\n`,
        },
        thought: `thinking ${EVIL}`,
        actions: [{ kind: "command", command: `echo ${EVIL}` }],
      },
      {
        type: "reply",
        step: 2,
        message: {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "1", type: "function", function: { name: `bash${EVIL}`, arguments: EVIL } }],
        },
        thought: "",
        actions: null,
      },
      {
        type: "observation",
        step: 2,
        action: { kind: "tool", id: "1", name: `bash${EVIL}`, args: {} },
        result: { returncode: 0, timedOut: false, interrupted: false, ran: true, durationMs: 1 },
        text: `out ${EVIL}\r\n`,
      },
      {
        type: "model_retry",
        step: 3,
        tryNumber: 1,
        maxTries: 2,
        waitSeconds: 1,
        reason: `HTTP 500: ${EVIL}`,
      },
      { type: "exit", status: "ModelError", message: `failed: ${EVIL}` },
    ]);
    expect(out).toBe(
      `TASK\ntask ${SHOWN}\n\n` +
        `STEP 1\nTHOUGHT\nthinking ${SHOWN}\nACTION\necho ${SHOWN}\n` +
        `STEP 2\nACTION bash${SHOWN} ${SHOWN}\n` +
        `OBSERVATION\nout ${SHOWN}\n\n` +
        `RETRY model call 3, try 1 of 2 failed: HTTP 500: ${SHOWN}; next try in 1.0 s\n` +
        `EXIT: ModelError failed: ${SHOWN}\n`,
    );
    expect(out).not.toMatch(/[\x1b\x07\x9b]/);
  });
});

describe("the interactive views", () => {
  it("an action, and an edit's diff of a file holding escapes, are shown neutralised", async () => {
    const dir = tempDir();
    const env = createLocalEnvironment({ cwd: dir });
    const file = join(dir, "a.txt");
    writeFileSync(file, `one ${EVIL}\ntwo\n`);
    const bash: Action = { kind: "command", command: `printf '${EVIL}'` };
    const edit: Action = {
      kind: "tool",
      id: "1",
      name: "str_replace_editor",
      args: { command: "str_replace", path: file, old_str: "two", new_str: `2 ${EVIL}` },
    };
    const other: Action = { kind: "tool", id: "2", name: `x${EVIL}`, args: { text: "\x7f\x9b" } };
    expect(await renderAction(bash, env, false)).toBe(`ACTION\nprintf '${SHOWN}'`);
    expect(await renderAction(edit, env, false)).toBe(
      `ACTION str_replace_editor str_replace ${file}\n` +
        `--- ${file}\n+++ ${file}\n@@ -1,2 +1,2 @@\n one ${SHOWN}\n-two\n+2 ${SHOWN}\n`.trimEnd(),
    );
    expect(await renderAction(other, env, false)).toBe(`ACTION x${SHOWN} {\n  "text": "^?M-^["\n}`);
    await env.close();
  });

  it("editing a command with control characters goes to the editor, not onto the prompt line", async () => {
    const dir = tempDir();
    const env = createLocalEnvironment({ cwd: dir });
    const config = loadConfig({ configArgs: ["default"], defaultConfig: "default" }).config;
    const run = new AbortController();
    let written = "";
    const asked: string[] = [];
    const answers = ["edit"];
    const ask: Ask = {
      choose: async <T extends string>() => answers.shift() as T,
      line: async (message) => {
        asked.push(`line: ${message}`);
        return "echo edited";
      },
      editor: async (text) => {
        asked.push(`editor: ${JSON.stringify(text)}`);
        return "echo edited";
      },
    };
    const session = new InteractiveSession({
      mode: "confirm",
      config,
      protocol: createBackticksProtocol("mswea_bash_command", null),
      env,
      ask,
      keyboard: new Keyboard(run, () => {}),
      run,
      write: (s) => {
        written += s;
      },
      color: false,
      scrub: (s) => s,
      told: toldFrom(config.run.interactive),
    });
    const before = session.hooks().beforeAction;
    const decision = await before?.({ kind: "command", command: `echo ${EVIL}` }, 1);
    expect(decision).toEqual({ run: true, action: { kind: "command", command: "echo edited" } });
    expect(asked).toEqual([`editor: ${JSON.stringify(`echo ${EVIL}`)}`]);
    expect(written).toBe(`ACTION\necho ${SHOWN}\nACTION (edited)\necho edited\n`);
    await env.close();
  });
});
