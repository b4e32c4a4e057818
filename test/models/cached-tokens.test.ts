import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnthropicMessage } from "../../src/models/anthropic-response.js";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ChatMessage } from "../../src/models/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { modelConfig } from "./helpers.js";

describe("cached prompt tokens and the request body", () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlmServer();
  });
  afterAll(() => server.close());

  it("OpenAI wire: usage.prompt_tokens_details.cached_tokens becomes usage.cached_tokens; absent stays absent", async () => {
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), { env: {} });
    server.enqueue(
      {
        type: "reply",
        content: "a",
        usage: { prompt_tokens: 500, completion_tokens: 5, cached_tokens: 448 },
      },
      { type: "reply", content: "b", usage: { prompt_tokens: 520, completion_tokens: 5 } },
    );
    const first = await model.query({ messages: [{ role: "user", content: "hi" }] });
    const second = await model.query({ messages: [{ role: "user", content: "hi" }] });
    expect(first.ok && first.usage).toEqual({ prompt_tokens: 500, completion_tokens: 5, cached_tokens: 448 });
    expect(second.ok && second.usage).toEqual({ prompt_tokens: 520, completion_tokens: 5 });
  });

  it("messages serialised once per message are the same JSON as the body serialised whole, step after step", async () => {
    const model = createModel(
      modelConfig({ base_url: `${server.url}/v1`, model_kwargs: { temperature: 0 } }),
      {
        env: {},
      },
    );
    const history: ChatMessage[] = [
      { role: "system", content: 'sys "quoted" \u2028 line' },
      { role: "user", content: "task" },
    ];
    const from = server.requests.length;
    for (let step = 0; step < 3; step++) {
      server.enqueue({
        type: "reply",
        content: `r${step}`,
        toolCalls: [{ name: "bash", arguments: { command: "ls" } }],
      });
      const res = await model.query({ messages: [...history] });
      expect(res.ok).toBe(true);
      if (!res.ok) return;
      history.push(
        { role: "assistant", content: res.message.content, tool_calls: res.message.tool_calls },
        { role: "tool", tool_call_id: res.message.tool_calls?.[0].id, content: `out ${step}` },
      );
    }
    const bodies = server.requests.slice(from).map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => Object.keys(b))).toEqual([
      ["temperature", "model", "messages"],
      ["temperature", "model", "messages"],
      ["temperature", "model", "messages"],
    ]);
    expect(bodies[2].messages).toEqual([
      { role: "system", content: 'sys "quoted" \u2028 line' },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: "r0",
        tool_calls: [
          {
            id: expect.any(String),
            type: "function",
            function: { name: "bash", arguments: '{"command":"ls"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: expect.any(String), content: "out 0" },
      {
        role: "assistant",
        content: "r1",
        tool_calls: [
          {
            id: expect.any(String),
            type: "function",
            function: { name: "bash", arguments: '{"command":"ls"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: expect.any(String), content: "out 1" },
    ]);
    // each request's messages begin with the previous request's, byte for byte
    const texts = bodies.map((b) => JSON.stringify(b.messages));
    expect(texts[1].startsWith(texts[0].slice(0, -1))).toBe(true);
    expect(texts[2].startsWith(texts[1].slice(0, -1))).toBe(true);
  });

  it("Anthropic: cache_read_input_tokens is the cached part of the prompt", () => {
    const parsed = parseAnthropicMessage({
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      usage: {
        input_tokens: 20,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 900,
        output_tokens: 3,
      },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 1020, completion_tokens: 3, cached_tokens: 900 });
  });
});
