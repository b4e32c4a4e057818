import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ChatMessage, ToolSpec } from "../../src/models/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(() => server.close());

const bashTool: ToolSpec = {
  name: "bash",
  description: "Run a command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

const conversation: ChatMessage[] = [
  { role: "system", content: "You are a helper." },
  { role: "user", content: "List files." },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
    ],
    extra: { step: 1, raw: { big: "object" } },
  },
  { role: "tool", tool_call_id: "call_1", content: "a.txt\n", extra: { returncode: 0 } },
];

describe("OpenAI-compatible client over HTTP", () => {
  it("sends model, messages without extra, tools and model_kwargs unchanged (minus drop_params)", async () => {
    server.enqueue({ type: "reply", content: "done" });
    const model = createModel(
      modelConfig({
        model_name: "openai/qwen3-coder",
        base_url: `${server.url}/v1`,
        model_kwargs: {
          temperature: 0.2,
          max_tokens: 512,
          top_k: 20,
          chat_template_kwargs: { enable_thinking: false },
          drop_params: true,
          parallel_tool_calls: false,
        },
      }),
      { env: {} },
    );
    const result = await model.query({ messages: conversation, tools: [bashTool] });
    expect(result.ok).toBe(true);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body).toEqual({
      temperature: 0.2,
      max_tokens: 512,
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
      parallel_tool_calls: false,
      model: "qwen3-coder",
      messages: [
        { role: "system", content: "You are a helper." },
        { role: "user", content: "List files." },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt\n" },
      ],
      tools: [{ type: "function", function: bashTool }],
    });
    expect(req.headers.authorization).toBe("Bearer not-needed");
  });

  it("sends no tools field without tools, and the key from the variable named by api_key_env", async () => {
    server.enqueue({ type: "reply", content: "hi" });
    const model = createModel(
      modelConfig({ model_name: "local-model", base_url: `${server.url}/v1`, api_key_env: "MY_LLM_KEY" }),
      { env: { MY_LLM_KEY: "sk-local-123", OPENAI_API_KEY: "sk-wrong" } },
    );
    expect(model.name).toBe("openai/local-model");
    await model.query({ messages: [{ role: "user", content: "hi" }] });
    const req = server.requests[0];
    expect(req.headers.authorization).toBe("Bearer sk-local-123");
    expect(req.body).toEqual({ model: "local-model", messages: [{ role: "user", content: "hi" }] });
  });

  it("takes the base URL from OPENAI_BASE_URL and the key from OPENAI_API_KEY by default", async () => {
    server.enqueue({ type: "reply", content: "hi" });
    const model = createModel(modelConfig(), {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-env" },
    });
    const result = await model.query({ messages: [{ role: "user", content: "hi" }] });
    expect(result.ok).toBe(true);
    expect(server.requests[0].headers.authorization).toBe("Bearer sk-env");
  });

  it("returns content, tool calls, usage, finish_reason, raw body, cost and tries", async () => {
    server.enqueue({
      type: "reply",
      content: "Let me look.",
      toolCalls: [{ id: "call_abc", name: "bash", arguments: { command: "ls -la" } }],
      usage: { prompt_tokens: 1234, completion_tokens: 56 },
      model: "served-name",
    });
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), { env: {} });
    const result = await model.query({ messages: conversation, tools: [bashTool] });
    expect(result).toEqual({
      ok: true,
      message: {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "call_abc", type: "function", function: { name: "bash", arguments: '{"command":"ls -la"}' } },
        ],
      },
      finishReason: "tool_calls",
      usage: { prompt_tokens: 1234, completion_tokens: 56 },
      cost: 0,
      raw: {
        id: "chatcmpl-fake-1",
        object: "chat.completion",
        created: 1_700_000_000,
        model: "served-name",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: "Let me look.",
              tool_calls: [
                {
                  id: "call_abc",
                  type: "function",
                  function: { name: "bash", arguments: '{"command":"ls -la"}' },
                },
              ],
            },
            logprobs: null,
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
      },
      tries: 1,
    });
  });

  it("reports finish_reason length as sent", async () => {
    server.enqueue({ type: "reply", content: "cut off", finishReason: "length" });
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), { env: {} });
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result.ok && result.finishReason).toBe("length");
  });

  it("charges the configured price on a local endpoint", async () => {
    server.enqueue({
      type: "reply",
      content: "x",
      usage: { prompt_tokens: 2_000_000, completion_tokens: 500_000 },
    });
    const model = createModel(
      modelConfig({ base_url: `${server.url}/v1`, price: { input_per_mtok: 0.5, output_per_mtok: 2 } }),
      { env: {} },
    );
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result.ok && result.cost).toBe(2);
  });

  it("retries a 200 whose JSON has no choices (`200 {}`) as a malformed reply", async () => {
    server.enqueue(
      { type: "error", status: 200, body: { unexpected: true } },
      { type: "error", status: 200, body: {} },
      { type: "error", status: 200, body: {} },
    );
    const { sleep, waits } = recordingSleep();
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), {
      env: {},
      sleep,
      random: () => 1,
    });
    const result = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(result).toEqual({
      ok: false,
      kind: "retries_exhausted",
      message:
        "openai/test-model: gave up after 3 tries; last error: malformed response: no choices[0].message in {}",
      status: undefined,
      tries: 3,
    });
    expect(waits).toEqual([1000, 2000]);
    server.enqueue({ type: "error", status: 200, body: {} }, { type: "reply", content: "fine" });
    const second = await model.query({ messages: [{ role: "user", content: "go" }] });
    expect(second.ok && second.message.content).toBe("fine");
  });
});
