import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bashReply, fakeServer, requestMessages, runTask, SUBMIT, textReply } from "./harness.js";

const FENCE = "```mswea_bash_command";

describe("finish_reason length through the real server", () => {
  const CUT =
    "Your last reply was cut off because it reached the output token limit, so none of it ran.\n" +
    "Send a shorter reply: less explanation, one action.";

  it("tool_calls: the cut reply's call does not run; the next request carries the cut-off message", async () => {
    const server = await fakeServer();
    server.enqueue(
      {
        type: "reply",
        content: "A long explanation",
        toolCalls: [{ id: "call_cut", name: "bash", arguments: { command: "touch ran.txt" } }],
        finishReason: "length",
      },
      bashReply(SUBMIT),
    );
    const run = await runTask(server);
    expect(run.result.exitStatus).toBe("Submitted");
    expect(requestMessages(server, 1).slice(3)).toEqual([
      {
        role: "tool",
        tool_call_id: "call_cut",
        content: "Not run: your reply was cut off by the output token limit.",
      },
      { role: "user", content: CUT },
    ]);
    expect(existsSync(join(run.repo, "ran.txt"))).toBe(false);
    expect(run.traj.messages[2].extra?.finish_reason).toBe("length");
    expect(run.traj.messages[4].extra?.kind).toBe("length");
  });

  it("backticks: a complete block in a cut reply does not run either", async () => {
    const server = await fakeServer();
    server.enqueue(
      { type: "reply", content: `THOUGHT: x\n${FENCE}\ntouch ran.txt\n\`\`\``, finishReason: "length" },
      textReply(`THOUGHT: again\n${FENCE}\n${SUBMIT}\n\`\`\``),
    );
    const run = await runTask(server, { builtin: "swebench_backticks" });
    expect(run.result.exitStatus).toBe("Submitted");
    expect(requestMessages(server, 1).at(-1)).toEqual({ role: "user", content: CUT });
    expect(existsSync(join(run.repo, "ran.txt"))).toBe(false);
  });
});
