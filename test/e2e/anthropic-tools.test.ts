import { describe, expect, it } from "vitest";
import { fakeServer, runTask, SUBMIT } from "./harness.js";

interface AnthropicRequest {
  model: string;
  max_tokens: number;
  system: string;
  tools: Array<{ name: string; input_schema: unknown }>;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
}

describe("tool calls over the Anthropic wire format, end to end", () => {
  it("tool_use blocks run in order; the next request carries tool_result blocks with their ids; then submit", async () => {
    const server = await fakeServer();
    server.enqueue(
      {
        type: "reply",
        content: "Two commands.",
        toolCalls: [
          {
            id: "toolu_alpha",
            name: "bash",
            arguments: { command: "echo alpha > order.txt; cat order.txt" },
          },
          {
            id: "toolu_beta",
            name: "bash",
            arguments: { command: "echo beta >> order.txt; cat order.txt; exit 3" },
          },
        ],
        usage: { prompt_tokens: 120, completion_tokens: 30 },
      },
      {
        type: "reply",
        toolCalls: [{ id: "toolu_submit", name: "bash", arguments: { command: SUBMIT } }],
        usage: { prompt_tokens: 200, completion_tokens: 10 },
      },
    );
    const run = await runTask(server, { wire: "anthropic" });
    expect(run.result.exitStatus).toBe("Submitted");
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);

    const first = server.requests[0].body as AnthropicRequest;
    expect(first.model).toBe("claude-fake");
    expect(first.max_tokens).toBe(4096);
    expect(first.system).toBe(run.traj.messages[0].content);
    expect(first.tools.map((t) => t.name)).toEqual(["bash", "str_replace_editor"]);
    expect(first.messages.map((m) => m.role)).toEqual(["user"]);

    const second = server.requests[1].body as AnthropicRequest;
    expect(second.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Two commands." },
          {
            type: "tool_use",
            id: "toolu_alpha",
            name: "bash",
            input: { command: "echo alpha > order.txt; cat order.txt" },
          },
          {
            type: "tool_use",
            id: "toolu_beta",
            name: "bash",
            input: { command: "echo beta >> order.txt; cat order.txt; exit 3" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_alpha",
            content: "<returncode>0</returncode>\n<output>\nalpha\n\n</output>",
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_beta",
            content: "<returncode>3</returncode>\n<output>\nalpha\nbeta\n\n</output>",
          },
        ],
      },
    ]);

    expect(run.traj.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([
      "toolu_alpha",
      "toolu_beta",
      "toolu_submit",
    ]);
    expect(run.traj.info.model_stats).toEqual({
      api_calls: 2,
      prompt_tokens: 320,
      completion_tokens: 40,
      cost: 0,
    });
    expect(run.result.submission).toBe(
      [
        "diff --git a/order.txt b/order.txt",
        "new file mode 100644",
        "index 0000000..fbbee86",
        "--- /dev/null",
        "+++ b/order.txt",
        "@@ -0,0 +1,2 @@",
        "+alpha",
        "+beta",
        "",
      ].join("\n"),
    );
  });
});
