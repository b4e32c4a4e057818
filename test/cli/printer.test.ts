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
});
