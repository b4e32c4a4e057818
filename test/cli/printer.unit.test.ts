import { describe, expect, it } from "vitest";
import { createPrinter } from "../../src/cli/printer.js";

function printed(events: Parameters<ReturnType<typeof createPrinter>>[0][]): string {
  let out = "";
  const print = createPrinter((s) => (out += s), false);
  for (const e of events) print(e);
  return out;
}

describe("printer", () => {
  it("shows a backticks reply as THOUGHT and ACTION, and the observation", () => {
    expect(
      printed([
        {
          type: "message",
          step: 1,
          message: {
            role: "assistant",
            content: "I will look.\n```mswea_bash_command\nls\n```\n",
            extra: { actions: [{ command: "ls" }] },
          },
        },
        {
          type: "message",
          step: 1,
          message: { role: "user", content: "<output>\na\n</output>\n", extra: { step: 1 } },
        },
        { type: "exit", status: "Submitted", message: "done" },
      ]),
    ).toBe(
      "STEP 1\nTHOUGHT\nI will look.\nACTION\nls\nOBSERVATION\n<output>\na\n</output>\n\nEXIT: Submitted done\n",
    );
  });

  it("shows tool calls with their arguments and flags format errors and timeouts", () => {
    expect(
      printed([
        {
          type: "message",
          step: 2,
          message: {
            role: "assistant",
            content: "",
            tool_calls: [
              { id: "1", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } },
            ],
          },
        },
        {
          type: "message",
          step: 2,
          message: { role: "tool", tool_call_id: "1", content: "slow", extra: { timed_out: true } },
        },
        {
          type: "message",
          step: 3,
          message: { role: "user", content: "bad", extra: { format_error: true } },
        },
      ]),
    ).toBe('STEP 2\nACTION bash {"command":"pwd"}\nOBSERVATION (timed out)\nslow\n\nFORMAT ERROR\nbad\n\n');
  });

  it("prints a tool-call format error once (not its per-call repeat) and the steps left on each STEP line", () => {
    let out = "";
    const print = createPrinter((t) => (out += t), false, undefined, { stepsLeft: (step) => 10 - step });
    const extra = { format_error: true, kind: "format_error", step: 9 };
    print({
      type: "message",
      step: 9,
      message: {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "1", type: "function", function: { name: "nosuch", arguments: "{}" } }],
      },
    });
    print({
      type: "message",
      step: 9,
      message: { role: "tool", tool_call_id: "1", content: 'Error: unknown tool "nosuch"', extra },
    });
    print({
      type: "message",
      step: 9,
      message: { role: "user", content: 'Your reply could not be run: unknown tool "nosuch"', extra },
    });
    print({ type: "message", step: 10, message: { role: "assistant", content: "last", tool_calls: [] } });
    expect(out).toBe(
      'STEP 9 (1 step left)\nACTION nosuch {}\nFORMAT ERROR\nYour reply could not be run: unknown tool "nosuch"\n\nSTEP 10 (0 steps left)\nTHOUGHT\nlast\n',
    );
  });

  it("leaves the ACTION lines to an interactive run when asked", () => {
    let out = "";
    const print = createPrinter((t) => (out += t), false, undefined, { actions: false });
    print({
      type: "message",
      step: 1,
      message: {
        role: "assistant",
        content: "Look.\n```bash\nls\n```",
        extra: { actions: [{ command: "ls" }] },
      },
    });
    expect(out).toBe("STEP 1\nTHOUGHT\nLook.\n");
  });
});
