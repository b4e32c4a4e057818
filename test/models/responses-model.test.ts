import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { ModelConfig } from "../../src/config/schema.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { parseResponse } from "../../src/models/responses-wire.js";
import type { ChatMessage, ToolSpec } from "../../src/models/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer({ flavor: "vllm" });
  servers.push(server);
  return server;
}

const bash: ToolSpec = {
  name: "bash",
  description: "Run a command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

function model(server: FakeLlmServer, overrides: Partial<ModelConfig> = {}) {
  const { sleep, waits } = recordingSleep();
  const m = createModel(
    modelConfig({
      model_name: "openai/openai/gpt-oss-20b",
      base_url: `${server.url}/v1`,
      api: "responses",
      reasoning_history: "chain",
      family: "gpt_oss",
      ...overrides,
    }),
    { env: {}, sleep, random: () => 1 },
  );
  return { m, waits };
}

const posts = (server: FakeLlmServer) => server.requests.filter((r) => r.method === "POST");
const inputOf = (server: FakeLlmServer, i: number) =>
  (posts(server)[i].body as { input: Array<Record<string, unknown>> }).input;

const start: ChatMessage[] = [
  { role: "system", content: "You are a careful engineer." },
  { role: "user", content: "Fix a.py." },
];

describe("the Responses API client (model.api: responses)", () => {
  it("sends input items and flat tools, reads reasoning, calls and usage from output items", async () => {
    const server = await serve();
    server.enqueue({
      type: "reply",
      content: null,
      reasoning: "I should look at the files first.",
      toolCalls: [{ id: "call_a", name: "bash", arguments: { command: "ls" } }],
      usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 64, reasoning_tokens: 12 },
    });
    const { m } = model(server, {
      model_kwargs: { reasoning_effort: "medium", max_tokens: 2048, temperature: 1 },
    });
    const result = await m.query({ messages: start, tools: [bash] });
    if (!result.ok) throw new Error(result.message);
    expect(posts(server).map((r) => r.path)).toEqual(["/v1/responses"]);
    expect(posts(server)[0].body).toEqual({
      temperature: 1,
      reasoning: { effort: "medium" },
      max_output_tokens: 2048,
      store: false,
      model: "openai/gpt-oss-20b",
      input: [
        { type: "message", role: "system", content: "You are a careful engineer." },
        { type: "message", role: "user", content: "Fix a.py." },
      ],
      tools: [{ type: "function", name: "bash", description: "Run a command", parameters: bash.parameters }],
    });
    expect(result.message).toEqual({
      role: "assistant",
      content: null,
      reasoning: "I should look at the files first.",
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
      ],
    });
    expect(result.finishReason).toBe("tool_calls");
    expect(result.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 30,
      reasoning_tokens: 12,
      cached_tokens: 64,
    });
    expect(result.tries).toBe(1);
  });

  it("sends the chain's reasoning as reasoning items before its calls, and drops it after a final answer", async () => {
    const server = await serve();
    server.enqueue(
      {
        type: "reply",
        reasoning: "R1",
        toolCalls: [{ id: "c1", name: "bash", arguments: { command: "ls" } }],
      },
      { type: "reply", reasoning: "R2", content: "I am done looking." },
      {
        type: "reply",
        reasoning: "R3",
        toolCalls: [{ id: "c3", name: "bash", arguments: { command: "cat a.py" } }],
      },
      { type: "reply", content: "ok" },
    );
    const { m } = model(server);
    const messages = [...start];
    const step = async (after: (reply: ChatMessage) => ChatMessage) => {
      const r = await m.query({ messages: [...messages], tools: [bash] });
      if (!r.ok) throw new Error(r.message);
      messages.push(r.message, after(r.message));
    };
    await step((r) => ({ role: "tool", tool_call_id: r.tool_calls?.[0].id, content: "a.py\n" }));
    await step(() => ({ role: "user", content: "Your reply had no tool call." }));
    await step((r) => ({ role: "tool", tool_call_id: r.tool_calls?.[0].id, content: "x = 1\n" }));
    await m.query({ messages: [...messages], tools: [bash] });
    const reasoningItem = (text: string) => ({
      type: "reasoning",
      id: `rs_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`,
      summary: [],
      content: [{ type: "reasoning_text", text }],
    });
    const call1 = { type: "function_call", call_id: "c1", name: "bash", arguments: '{"command":"ls"}' };
    const out1 = { type: "function_call_output", call_id: "c1", output: "a.py\n" };
    expect(inputOf(server, 1).slice(2)).toEqual([reasoningItem("R1"), call1, out1]);
    const final = {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "I am done looking." }],
    };
    const nudge = { type: "message", role: "user", content: "Your reply had no tool call." };
    expect(inputOf(server, 2).slice(2)).toEqual([call1, out1, final, nudge]);
    expect(inputOf(server, 3).slice(2)).toEqual([
      call1,
      out1,
      final,
      nudge,
      reasoningItem("R3"),
      { type: "function_call", call_id: "c3", name: "bash", arguments: '{"command":"cat a.py"}' },
      { type: "function_call_output", call_id: "c3", output: "x = 1\n" },
    ]);
  });

  it("reasoning_history drop sends no reasoning items; keep sends every one", async () => {
    for (const [history, expected] of [
      ["drop", 0],
      ["keep", 1],
    ] as const) {
      const server = await serve();
      server.enqueue(
        { type: "reply", reasoning: "R1", content: "no call" },
        { type: "reply", content: "ok" },
      );
      const { m } = model(server, { reasoning_history: history, family: null });
      const first = await m.query({ messages: start });
      if (!first.ok) throw new Error(first.message);
      await m.query({ messages: [...start, first.message, { role: "user", content: "go on" }] });
      expect(inputOf(server, 1).filter((i) => i.type === "reasoning")).toHaveLength(expected);
    }
  });

  it("an assistant message with nothing to send leaves no item, and the body stays one JSON object", async () => {
    const server = await serve();
    server.enqueue({ type: "reply", content: "ok" });
    const empty: ChatMessage = { role: "assistant", content: "" };
    const result = await model(server).m.query({
      messages: [...start, empty, { role: "user", content: "Say something." }],
    });
    if (!result.ok) throw new Error(result.message);
    expect(inputOf(server, 0)).toEqual([
      ...start.map((m) => ({ type: "message", role: m.role, content: m.content })),
      { type: "message", role: "user", content: "Say something." },
    ]);
  });

  it("retries a 503 through the shared layers, and a response cut at max_output_tokens finishes as length", async () => {
    const server = await serve();
    server.enqueue(
      { type: "error", status: 503, body: { error: { message: "busy", type: "server_error", code: 503 } } },
      { type: "reply", content: "partial", finishReason: "length" },
    );
    const { m, waits } = model(server);
    const result = await m.query({ messages: start });
    if (!result.ok) throw new Error(result.message);
    expect([result.tries, waits.length, result.finishReason, result.message.content]).toEqual([
      2,
      1,
      "length",
      "partial",
    ]);
  });

  it("lowers max_output_tokens once when the prompt fits but prompt + max does not", async () => {
    const server = await startFakeLlmServer({ flavor: "vllm", contextLength: 8192 });
    servers.push(server);
    server.enqueue({ type: "sized", promptTokens: 7000, content: "fits" });
    const { m } = model(server, { model_kwargs: { max_tokens: 4096 } });
    const result = await m.query({ messages: start });
    if (!result.ok) throw new Error(result.message);
    expect(result.maxTokensLowered).toEqual({
      field: "max_output_tokens",
      from: 4096,
      to: 1192,
      context_length: 8192,
    });
    expect(posts(server).map((r) => (r.body as { max_output_tokens: number }).max_output_tokens)).toEqual([
      4096, 1192,
    ]);
  });

  it("a body without an output list is retried, then a model error that names what came", async () => {
    const server = await serve();
    server.enqueue(
      { type: "error", status: 200, body: { id: "resp_1", object: "response" } },
      { type: "error", status: 200, body: { id: "resp_2", object: "response" } },
      { type: "error", status: 200, body: { id: "resp_3", object: "response" } },
    );
    const result = await model(server).m.query({ messages: start });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("retries_exhausted");
    expect(result.tries).toBe(3);
    expect(result.message).toContain('no output list in {"id":"resp_3","object":"response"}');
  });

  it("constrain_actions requires a tool call; a fenced text format is refused before any request", async () => {
    const server = await serve();
    server.enqueue({ type: "reply", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] });
    const { m } = model(server, { constrain_actions: true });
    const called = await m.query({ messages: start, tools: [bash], constraint: { kind: "tool_call" } });
    expect(called.ok).toBe(true);
    expect((posts(server)[0].body as Record<string, unknown>).tool_choice).toBe("required");
    const fenced = await m.query({
      messages: start,
      constraint: { kind: "fenced", tag: "mswea_bash_command", regex: "x", gbnf: "root ::= x" },
    });
    expect(fenced).toEqual({
      ok: false,
      kind: "fatal",
      message:
        "openai/openai/gpt-oss-20b: model.constrain_actions with model.api responses can require a tool call (agent.protocol tool_calls), not enforce the ```mswea_bash_command text format; use agent.protocol tool_calls, or model.api chat",
      tries: 0,
    });
    expect(posts(server)).toHaveLength(1);
  });

  it("images go as input_image parts; the gpt_oss preset sends to /v1/responses", async () => {
    const server = await serve();
    server.enqueue({ type: "reply", content: "a cat" });
    const preset = loadConfig({ configArgs: ["swebench", "gpt_oss"], defaultConfig: "default" }).config.model;
    const m = createModel(
      { ...preset, model_name: "openai/openai/gpt-oss-20b", base_url: `${server.url}/v1`, vision: true },
      { env: {} },
    );
    const image: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    };
    const result = await m.query({ messages: [image] });
    if (!result.ok) throw new Error(result.message);
    const body = posts(server)[0].body as Record<string, unknown>;
    expect(posts(server)[0].path).toBe("/v1/responses");
    expect(body.reasoning).toEqual({ effort: "medium" });
    expect(body.input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is this?" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA" },
        ],
      },
    ]);
    expect(result.message).toEqual({ role: "assistant", content: "a cat" });
  });
});

describe("parseResponse on hostile output", () => {
  it("arguments nested 100,000 deep become text without recursion; items that are not objects are malformed", () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const body = JSON.parse(
      `{"output":[{"type":"function_call","call_id":"c","name":"bash","arguments":${deep}}]}`,
    );
    const { message } = parseResponse(body);
    const args = message.tool_calls?.[0].function.arguments ?? "";
    expect(args === deep).toBe(true);
    expect(() => parseResponse({ output: ["text"] })).toThrow('output[0] is not an object: "text"');
    expect(() => parseResponse({ output: [{ type: "function_call", call_id: "c" }] })).toThrow(
      'output[0] is a function_call without a name: {"type":"function_call","call_id":"c"}',
    );
    expect(() => parseResponse({ output: [{ type: "message", role: "assistant", content: "hi" }] })).toThrow(
      "output[0] (message) has no content list",
    );
  });
});
