import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../src/config/schema.js";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ChatMessage, ToolSpec } from "../../src/models/types.js";
import { anthropicErrorBody, anthropicPromptTooLongBody } from "../../src/testing/fake-llm-errors.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(() => server.close());

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const bashTool: ToolSpec = {
  name: "bash",
  description: "Run a command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

function anthropic(
  overrides: Partial<ModelConfig> = {},
  env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: "sk-ant-test" },
) {
  const { sleep, waits } = recordingSleep();
  const model = createModel(
    modelConfig({ model_name: "anthropic/claude-test", base_url: server.url, ...overrides }),
    { env, sleep, random: () => 1 },
  );
  return { model, waits };
}

describe("Anthropic client over HTTP", () => {
  it("converts the conversation: system, tool_use, tool_result, images, merged turns, tools", async () => {
    server.enqueue({ type: "reply", content: "ok" });
    const { model } = anthropic({ model_kwargs: { temperature: 0, drop_params: true, top_k: 5 } });
    const messages: ChatMessage[] = [
      { role: "system", content: "You fix bugs." },
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
      { role: "user", content: "Look at the screenshot." },
      {
        role: "assistant",
        content: "I will run two commands.",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          {
            id: "toolu_2",
            type: "function",
            function: { name: "view_image", arguments: '{"path":"a.png"}' },
          },
        ],
        extra: { step: 1 },
      },
      { role: "tool", tool_call_id: "toolu_1", content: "a.png\n" },
      {
        role: "tool",
        tool_call_id: "toolu_2",
        content: [
          { type: "text", text: "Image a.png:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Also this one." },
          { type: "image_url", image_url: { url: "https://example.com/b.jpg" } },
        ],
      },
    ];
    const result = await model.query({ messages, tools: [bashTool] });
    expect(result.ok).toBe(true);
    const req = server.requests[0];
    expect(req.path).toBe("/v1/messages");
    expect(req.headers.authorization).toBe("Bearer sk-ant-test");
    expect(typeof req.headers["anthropic-version"]).toBe("string");
    expect(req.body).toEqual({
      temperature: 0,
      top_k: 5,
      model: "claude-test",
      max_tokens: 4096,
      system: "You fix bugs.\n\nBe brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Look at the screenshot." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "I will run two commands." },
            { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
            { type: "tool_use", id: "toolu_2", name: "view_image", input: { path: "a.png" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "a.png\n" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              content: [
                { type: "text", text: "Image a.png:" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
              ],
            },
            { type: "text", text: "Also this one." },
            { type: "image", source: { type: "url", url: "https://example.com/b.jpg" } },
          ],
        },
      ],
      tools: [{ name: "bash", description: "Run a command", input_schema: bashTool.parameters }],
    });
  });

  it("takes max_tokens from model_kwargs and sends a placeholder key to a local endpoint without one", async () => {
    server.enqueue({ type: "reply", content: "ok" });
    const { model } = anthropic({ model_kwargs: { max_tokens: 1000 } }, {});
    await model.query({ messages: [{ role: "user", content: "hi" }] });
    expect(server.requests[0].body).toEqual({
      model: "claude-test",
      max_tokens: 1000,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    expect(server.requests[0].headers.authorization).toBe("Bearer not-needed");
  });

  it("reasoning_history chain (family claude) sends the current tool-use turn's thinking blocks back unchanged; drop none", async () => {
    const reply = (seq: number, thinking: string) => ({
      type: "error" as const,
      status: 200,
      body: {
        id: `msg_${seq}`,
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [
          { type: "thinking", thinking, signature: `sig-${seq}` },
          { type: "redacted_thinking", data: `enc-${seq}` },
          { type: "tool_use", id: `toolu_${seq}`, name: "bash", input: { command: "ls" } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    for (const history of ["chain", "drop"] as const) {
      server.enqueue(reply(1, "first"), reply(2, "second"), { type: "reply", content: "done" });
      const { model } = anthropic({
        reasoning_history: history,
        family: history === "chain" ? "claude" : null,
      });
      const messages: ChatMessage[] = [{ role: "user", content: "go" }];
      for (const k of [1, 2]) {
        const r = await model.query({ messages: [...messages], tools: [bashTool] });
        if (!r.ok) throw new Error(r.message);
        messages.push(r.message, { role: "tool", tool_call_id: `toolu_${k}`, content: "a.txt" });
        if (k === 1) messages.push({ role: "user", content: "Keep going." });
      }
      await model.query({ messages: [...messages], tools: [bashTool] });
      const sent = server.requests.slice(-1)[0].body as {
        messages: Array<{ role: string; content: unknown[] }>;
      };
      const assistants = sent.messages.filter((m) => m.role === "assistant").map((m) => m.content);
      const call = (k: number) => ({
        type: "tool_use",
        id: `toolu_${k}`,
        name: "bash",
        input: { command: "ls" },
      });
      expect([history, assistants]).toEqual([
        history,
        [
          [call(1)],
          history === "chain"
            ? [
                { type: "thinking", thinking: "second", signature: "sig-2" },
                { type: "redacted_thinking", data: "enc-2" },
                call(2),
              ]
            : [call(2)],
        ],
      ]);
    }
  });

  it("converts the reply back: text blocks joined, tool_use to tool_calls, usage, stop reason", async () => {
    const body = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "First part. " },
        { type: "text", text: "Second part." },
        { type: "tool_use", id: "toolu_9", name: "bash", input: { command: "pytest -x" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 20,
        cache_read_input_tokens: 3,
        output_tokens: 7,
      },
    };
    server.enqueue({ type: "error", status: 200, body });
    const { model } = anthropic({ price: { input_per_mtok: 3, output_per_mtok: 15 } });
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result).toEqual({
      ok: true,
      message: {
        role: "assistant",
        content: "First part. Second part.",
        reasoning: "hmm",
        thinking_blocks: [{ type: "thinking", thinking: "hmm", signature: "sig" }],
        tool_calls: [
          {
            id: "toolu_9",
            type: "function",
            function: { name: "bash", arguments: '{"command":"pytest -x"}' },
          },
        ],
      },
      finishReason: "tool_calls",
      // cache_read_input_tokens: served from the prompt cache
      usage: { prompt_tokens: 123, completion_tokens: 7, cached_tokens: 3 },
      cost: (123 * 3 + 7 * 15) / 1e6,
      raw: body,
      tries: 1,
    });
  });

  it("maps stop reasons to OpenAI finish reasons", async () => {
    const { model } = anthropic();
    const pairs: Array<[string, string]> = [
      ["end_turn", "stop"],
      ["stop_sequence", "stop"],
      ["max_tokens", "length"],
      ["tool_use", "tool_calls"],
      ["refusal", "refusal"],
    ];
    for (const [stop] of pairs) server.enqueue({ type: "reply", content: "x", finishReason: stop });
    const got: Array<[string, string | null]> = [];
    for (const [stop] of pairs) {
      const result = await model.query({ messages: [{ role: "user", content: "go" }] });
      got.push([stop, result.ok ? result.finishReason : `error: ${result.message}`]);
    }
    expect(got).toEqual(pairs);
  });

  it("gives content null for a reply with only tool use", async () => {
    server.enqueue({
      type: "reply",
      content: null,
      toolCalls: [{ id: "toolu_a", name: "bash", arguments: { command: "ls" } }],
    });
    const { model } = anthropic();
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result.ok && result.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "toolu_a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
      ],
    });
  });

  it("reports 'prompt is too long' as context_exceeded without retrying", async () => {
    server.enqueue({ type: "error", status: 400, body: anthropicPromptTooLongBody() });
    const { model, waits } = anthropic();
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result).toEqual({
      ok: false,
      kind: "context_exceeded",
      message:
        "anthropic/claude-test: context length exceeded (HTTP 400: prompt is too long: 208310 tokens > 200000 maximum)",
      status: 400,
      tries: 1,
      contextLength: 200000,
    });
    expect(waits).toEqual([]);
  });

  it("retries 529 overloaded and fails 401 at once", async () => {
    server.enqueue(
      { type: "error", status: 529, body: anthropicErrorBody("overloaded_error", "Overloaded") },
      { type: "reply", content: "ok" },
      { type: "error", status: 401, body: anthropicErrorBody("authentication_error", "invalid x-api-key") },
    );
    const { model, waits } = anthropic();
    const first = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(first.ok && first.tries).toBe(2);
    expect(waits).toEqual([1000]);
    const second = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(second).toEqual({
      ok: false,
      kind: "fatal",
      message:
        "anthropic/claude-test: HTTP 401: invalid x-api-key (check the API key and model.api_key_env) (not retried)",
      status: 401,
      tries: 1,
    });
  });

  it("fails as fatal without sending when an image cannot be converted", async () => {
    const { model } = anthropic();
    const result = await model.query({
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///tmp/a.png" } }] }],
    });
    expect(result).toEqual({
      ok: false,
      kind: "fatal",
      message:
        'anthropic/claude-test: cannot convert the conversation for the Anthropic API: an image_url must be a base64 data URL or an http(s) URL; received "file:///tmp/a.png"',
      tries: 0,
    });
    expect(server.requests).toHaveLength(0);
  });
});
