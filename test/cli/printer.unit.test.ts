import { describe, expect, it } from "vitest";
import type { AgentEvent, ObservedResult } from "../../src/agent/agent.js";
import type { Action } from "../../src/agent/protocols/types.js";
import { createPrinter } from "../../src/cli/printer.js";

function printed(events: AgentEvent[]): string {
  let out = "";
  const print = createPrinter((s) => (out += s), false);
  for (const e of events) print(e);
  return out;
}

const ran = (over: Partial<ObservedResult> = {}): ObservedResult => ({
  returncode: 0,
  timedOut: false,
  interrupted: false,
  ran: true,
  durationMs: 5,
  ...over,
});

const ls: Action = { kind: "command", command: "ls" };
const pwd: Action = { kind: "tool", id: "1", name: "bash", args: { command: "pwd" } };

describe("printer", () => {
  it("shows a backticks reply as THOUGHT and ACTION, and the observation", () => {
    expect(
      printed([
        {
          type: "reply",
          step: 1,
          message: { role: "assistant", content: "I will look.\n```mswea_bash_command\nls\n```\n" },
          thought: "I will look.",
          actions: [ls],
        },
        { type: "action", step: 1, action: ls },
        { type: "observation", step: 1, action: ls, result: ran(), text: "<output>\na\n</output>\n" },
        { type: "exit", status: "Submitted", message: "done" },
      ]),
    ).toBe(
      "STEP 1\nTHOUGHT\nI will look.\nACTION\nls\nOBSERVATION\n<output>\na\n</output>\n\nEXIT: Submitted done\n",
    );
  });

  it("an exit message that only repeats the status is not printed twice", () => {
    expect(printed([{ type: "exit", status: "Interrupted", message: "interrupted" }])).toBe(
      "EXIT: Interrupted\n",
    );
    expect(printed([{ type: "exit", status: "LimitsExceeded", message: "step limit 3 reached" }])).toBe(
      "EXIT: LimitsExceeded step limit 3 reached\n",
    );
  });

  it("shows tool calls with their arguments and flags format errors and timeouts", () => {
    expect(
      printed([
        {
          type: "reply",
          step: 2,
          message: {
            role: "assistant",
            content: "",
            tool_calls: [
              { id: "1", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } },
            ],
          },
          thought: "",
          actions: [pwd],
        },
        { type: "observation", step: 2, action: pwd, result: ran({ timedOut: true }), text: "slow" },
        { type: "rejected", step: 3, text: "bad", cutOff: false },
      ]),
    ).toBe('STEP 2\nACTION bash {"command":"pwd"}\nOBSERVATION (timed out)\nslow\n\nFORMAT ERROR\nbad\n\n');
  });

  it("prints a tool-call format error once (not its per-call repeat) and the steps left on each STEP line", () => {
    let out = "";
    const print = createPrinter((t) => (out += t), false, undefined, { stepsLeft: (step) => 10 - step });
    const reply = {
      role: "assistant" as const,
      content: "",
      tool_calls: [{ id: "1", type: "function" as const, function: { name: "nosuch", arguments: "{}" } }],
    };
    print({ type: "message", step: 9, message: reply });
    print({ type: "reply", step: 9, message: reply, thought: "", actions: null });
    print({
      type: "message",
      step: 9,
      message: { role: "tool", tool_call_id: "1", content: 'Error: unknown tool "nosuch"' },
    });
    print({
      type: "rejected",
      step: 9,
      text: 'Your reply could not be run: unknown tool "nosuch"',
      cutOff: false,
    });
    const last = { role: "assistant" as const, content: "last", tool_calls: [] };
    print({ type: "reply", step: 10, message: last, thought: "last", actions: [] });
    expect(out).toBe(
      'STEP 9 (1 step left)\nACTION nosuch {}\nFORMAT ERROR\nYour reply could not be run: unknown tool "nosuch"\n\nSTEP 10 (0 steps left)\nTHOUGHT\nlast\n',
    );
  });

  it("leaves the ACTION lines to an interactive run when asked", () => {
    let out = "";
    const print = createPrinter((t) => (out += t), false, undefined, { actions: false });
    print({
      type: "reply",
      step: 1,
      message: { role: "assistant", content: "Look.\n```bash\nls\n```" },
      thought: "Look.",
      actions: [ls],
    });
    expect(out).toBe("STEP 1\nTHOUGHT\nLook.\n");
  });

  it("shows the task once, from its message, and nothing of the other messages", () => {
    expect(
      printed([
        { type: "message", step: 0, message: { role: "system", content: "be good" } },
        { type: "message", step: 0, message: { role: "user", content: "fix it" } },
        { type: "message", step: 1, message: { role: "assistant", content: "ok" } },
        { type: "message", step: 1, message: { role: "user", content: "<output>x</output>" } },
      ]),
    ).toBe("TASK\nfix it\n\n");
  });
});
