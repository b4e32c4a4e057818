import { afterEach, describe, expect, it } from "vitest";
import { fencedActionGbnf, fencedActionRegex } from "../../src/agent/protocols/fenced-constraint.js";
import type { ModelConfig } from "../../src/config/schema.js";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ActionConstraint, ChatMessage, ModelRequest, RetryNotice } from "../../src/models/types.js";
import {
  type FakeFlavor,
  type FakeLlmServer,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(flavor?: FakeFlavor, contextLength?: number): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer({ flavor, contextLength });
  servers.push(server);
  return server;
}

function model(server: FakeLlmServer, overrides: Partial<ModelConfig> = {}) {
  const { sleep, waits } = recordingSleep();
  const m = createModel(modelConfig({ base_url: `${server.url}/v1`, ...overrides }), {
    env: {},
    sleep,
    random: () => 1,
  });
  return { m, waits };
}

const F = "```";
const answer = `THOUGHT: list the files.\n\n${F}mswea_bash_command\nls\n${F}`;
const user: ChatMessage = { role: "user", content: "fix it" };
const fenced: ActionConstraint = {
  kind: "fenced",
  tag: "mswea_bash_command",
  regex: fencedActionRegex("mswea_bash_command"),
  gbnf: fencedActionGbnf("mswea_bash_command"),
};
const body = (server: FakeLlmServer, i: number) =>
  server.requests.filter((r) => r.method === "POST")[i].body as Record<string, unknown>;

describe("reasoning, as each server returns it", () => {
  const cases: Array<[FakeFlavor, string]> = [
    ["vllm", "reasoning"],
    ["vllm-legacy", "reasoning_content"],
    ["sglang", "reasoning_content"],
    ["llamacpp", "reasoning_content"],
    ["ollama", "reasoning"],
    ["think-tags", "content"],
  ];
  for (const [flavor, where] of cases) {
    it(`${flavor}: the thinking (in ${where}) is kept apart, the answer alone is the content`, async () => {
      const server = await serve(flavor);
      // The thinking holds a fenced block of its own: it must not reach the content.
      const thinking = `maybe ${F}mswea_bash_command\nrm -rf /\n${F} no`;
      server.enqueue({
        type: "reply",
        content: answer,
        reasoning: thinking,
        usage: { reasoning_tokens: 12 },
      });
      const { m } = model(server);
      const result = await m.query({ messages: [user] });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.message.content).toBe(answer);
      expect(result.message.reasoning).toBe(thinking);
      expect(result.usage.reasoning_tokens).toBe(12);
      if (flavor === "think-tags") {
        const raw = result.raw as { choices: Array<{ message: { content: string } }> };
        expect(raw.choices[0].message.content.startsWith("<think>\n")).toBe(true);
      }
    });
  }

  it("openai: no reasoning field, no reasoning", async () => {
    const server = await serve("openai");
    server.enqueue({ type: "reply", content: answer, reasoning: "hidden" });
    const result = await model(server).m.query({ messages: [user] });
    expect(result.ok && result.message.reasoning).toBe(undefined);
  });

  it("a reply that starts inside the thinking (the template opened <think>) is split at </think>", async () => {
    const server = await serve();
    server.enqueue({ type: "reply", content: `I should list files.\n</think>\n\n${answer}` });
    const result = await model(server).m.query({ messages: [user] });
    expect(result.ok && [result.message.reasoning, result.message.content]).toEqual([
      "I should list files.",
      answer,
    ]);
  });

  for (const [flavor, field] of [
    ["vllm", "reasoning"],
    ["sglang", "reasoning_content"],
    ["think-tags", null],
  ] as const) {
    it(`${flavor}: reasoning_history keep sends the thinking back where it came from; drop does not`, async () => {
      const server = await serve(flavor);
      for (const history of ["keep", "drop"] as const) {
        server.enqueue(
          { type: "reply", content: answer, reasoning: "first thoughts" },
          { type: "reply", content: "ok" },
        );
        const { m } = model(server, { reasoning_history: history });
        const first = await m.query({ messages: [user] });
        if (!first.ok) throw new Error(first.message);
        await m.query({ messages: [user, first.message, { role: "user", content: "next" }] });
        const sent = (body(server, server.requests.length - 1).messages as Array<Record<string, unknown>>)[1];
        if (history === "drop") expect(sent).toEqual({ role: "assistant", content: answer });
        else if (field)
          expect(sent).toEqual({ role: "assistant", content: answer, [field]: "first thoughts" });
        else
          expect(sent).toEqual({
            role: "assistant",
            content: `<think>\nfirst thoughts\n</think>\n\n${answer}`,
          });
      }
    });
  }
});

describe("prompts that do not fit, in each server's words", () => {
  const refusing: FakeFlavor[] = ["vllm", "vllm-legacy", "sglang", "openai"];
  for (const flavor of refusing) {
    it(`${flavor}: prompt + max_tokens too large is retried once with max_tokens lowered, and recorded`, async () => {
      const server = await serve(flavor, 8192);
      server.enqueue({ type: "sized", promptTokens: 7000, content: "fits" });
      const { m, waits } = model(server, { model_kwargs: { max_tokens: 4096 } });
      const result = await m.query({ messages: [user] });
      if (!result.ok) throw new Error(result.message);
      expect(result.message.content).toBe("fits");
      const to = flavor === "sglang" ? 1191 : 1192;
      expect(result.maxTokensLowered).toEqual({
        field: "max_tokens",
        from: 4096,
        to,
        context_length: 8192,
      });
      expect([body(server, 0).max_tokens, body(server, 1).max_tokens]).toEqual([4096, to]);
      expect(waits).toEqual([]);
    });
  }

  it("openai: the lowered field is max_completion_tokens when the request uses it", async () => {
    const server = await serve("vllm", 8192);
    server.enqueue({ type: "sized", promptTokens: 8000, content: "fits" });
    const result = await model(server, { model_kwargs: { max_completion_tokens: 1000 } }).m.query({
      messages: [user],
    });
    expect(result.ok && result.maxTokensLowered).toEqual({
      field: "max_completion_tokens",
      from: 1000,
      to: 192,
      context_length: 8192,
    });
  });

  const all: FakeFlavor[] = ["vllm", "vllm-legacy", "sglang", "llamacpp", "ollama", "openai"];
  for (const flavor of all) {
    it(`${flavor}: a prompt longer than the window is context_exceeded, not retried`, async () => {
      const server = await serve(flavor, 8192);
      server.enqueue({ type: "sized", promptTokens: 9000, content: "never" });
      const result = await model(server, { model_kwargs: { max_tokens: 512 } }).m.query({ messages: [user] });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.kind).toBe("context_exceeded");
      expect(result.tries).toBe(1);
      expect(result.contextLength).toBe(flavor === "ollama" ? undefined : 8192);
      expect(result.message).toMatch(/^openai\/test-model: context length exceeded \(HTTP 400: /);
    });
  }

  it("still too large after lowering: context_exceeded, saying what was tried", async () => {
    const server = await serve("vllm", 8192);
    const error = {
      type: "error" as const,
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains at least 7000 input tokens, for a total of at least 11096 tokens.",
          type: "BadRequestError",
          param: "input_tokens",
          code: 400,
        },
      },
    };
    server.enqueue(error, error);
    const result = await model(server, { model_kwargs: { max_tokens: 4096 } }).m.query({ messages: [user] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("context_exceeded");
    expect(result.tries).toBe(2);
    expect(result.message).toMatch(/it still did not fit after max_tokens was lowered from 4096 to 1192$/);
  });
});

describe("constrained actions (model.constrain_actions)", () => {
  const request = (constraint: ActionConstraint, tools = false): ModelRequest => ({
    messages: [user],
    constraint,
    tools: tools ? [{ name: "bash", description: "run", parameters: { type: "object" } }] : undefined,
  });

  it("vLLM gets structured_outputs.regex; the server is asked which it is, once, and its context length recorded", async () => {
    const server = await serve("vllm", 65536);
    server.enqueue({ type: "reply", content: answer }, { type: "reply", content: answer });
    const { m } = model(server, { constrain_actions: true });
    const first = await m.query(request(fenced));
    await m.query(request(fenced));
    expect(first.ok && first.contextLength).toBe(65536);
    expect(body(server, 0).structured_outputs).toEqual({ regex: fenced.kind === "fenced" && fenced.regex });
    expect(server.requests.filter((r) => r.method === "GET").map((r) => r.path)).toEqual(["/v1/models"]);
  });

  it("SGLang gets regex, llama.cpp grammar (found through its model list)", async () => {
    const sglang = await serve("sglang");
    sglang.enqueue({ type: "reply", content: answer });
    await model(sglang, { constrain_actions: true }).m.query(request(fenced));
    expect(body(sglang, 0).regex).toBe(fenced.kind === "fenced" && fenced.regex);
    const llama = await serve("llamacpp", 4096);
    llama.enqueue({ type: "reply", content: answer });
    const r = await model(llama, { constrain_actions: true }).m.query(request(fenced));
    expect(body(llama, 0).grammar).toBe(fenced.kind === "fenced" && fenced.gbnf);
    expect(r.ok && r.contextLength).toBe(4096);
  });

  it("tool_calls get tool_choice: required; model.server skips the question", async () => {
    const server = await serve("vllm");
    server.enqueue({ type: "reply", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] });
    const r = await model(server, { constrain_actions: true, server: "vllm" }).m.query(
      request({ kind: "tool_call" }, true),
    );
    expect(r.ok).toBe(true);
    expect(body(server, 0).tool_choice).toBe("required");
    expect(server.requests.filter((x) => x.method === "GET")).toEqual([]);
  });

  it("the fake vLLM refuses a scripted reply outside the regex it was sent (the constraint is real)", async () => {
    const server = await serve("vllm");
    server.enqueue({ type: "reply", content: "no block at all" });
    const r = await model(server, {
      constrain_actions: true,
      retry: { max_tries: 1, initial_delay: 1, max_delay: 1, max_total: 0 },
    }).m.query(request(fenced));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain("the scripted reply does not match the regex the request sent");
  });

  it("Ollama and unknown servers end the call with a message that says what to do", async () => {
    const ollama = await serve("ollama");
    const r1 = await model(ollama, { constrain_actions: true }).m.query(request(fenced));
    expect(r1).toEqual({
      ok: false,
      kind: "fatal",
      tries: 0,
      message:
        "openai/test-model: model.constrain_actions: Ollama cannot enforce a text format (the ```mswea_bash_command block); use vLLM, SGLang or llama.cpp, or turn model.constrain_actions off",
    });
    const unknown = await serve();
    const r2 = await model(unknown, { constrain_actions: true }).m.query(request(fenced));
    expect(!r2.ok && r2.message).toContain("set model.server (vllm, sglang, llamacpp, ollama or openai)");
    expect(ollama.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("without constrain_actions nothing is added and nothing is asked", async () => {
    const server = await serve("vllm");
    server.enqueue({ type: "reply", content: answer });
    await model(server).m.query(request(fenced));
    const sent = body(server, 0);
    expect(["structured_outputs", "regex", "grammar", "tool_choice"].filter((k) => k in sent)).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe("retry notices", () => {
  it("tell the reason, the try and the wait before each retry", async () => {
    const server = await serve("vllm");
    server.enqueue(
      {
        type: "error",
        status: 503,
        body: { error: { message: "overloaded", type: "ServiceUnavailable", code: 503 } },
      },
      { type: "error", status: 200, body: {} },
      { type: "reply", content: "ok" },
    );
    const notices: RetryNotice[] = [];
    const result = await model(server).m.query({ messages: [user], onRetry: (n) => notices.push(n) });
    expect(result.ok).toBe(true);
    expect(notices).toEqual([
      { tryNumber: 1, maxTries: 3, waitMs: 1000, reason: "HTTP 503: overloaded" },
      { tryNumber: 2, maxTries: 3, waitMs: 2000, reason: "malformed response: no choices[0].message in {}" },
    ]);
  });
});
