import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../src/config/schema.js";
import { createModel } from "../../src/models/factory/create-model.js";
import type { ModelResult } from "../../src/models/types.js";
import {
  llamaCppContextLengthBody,
  openaiContextLengthBody,
  openaiErrorBody,
  vllmContextLengthBody,
} from "../../src/testing/fake-llm-errors.js";
import {
  type FakeBehaviour,
  type FakeLlmServer,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";
import { modelConfig, recordingSleep } from "./helpers.js";

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(() => server.close());

const ok: FakeBehaviour = { type: "reply", content: "finally" };

/** Queues `behaviours`, runs one query with random = 1 (full backoff), returns the result and the waits. */
async function run(
  behaviours: FakeBehaviour[],
  overrides: Partial<ModelConfig> = {},
): Promise<{ result: ModelResult; waits: number[] }> {
  server.enqueue(...behaviours);
  const { sleep, waits } = recordingSleep();
  const model = createModel(modelConfig({ base_url: `${server.url}/v1`, ...overrides }), {
    env: {},
    sleep,
    random: () => 1,
  });
  const result = await model.query({ messages: [{ role: "user", content: "fix it" }] });
  return { result, waits };
}

function expectSuccess(result: ModelResult, tries: number): void {
  expect(result.ok).toBe(true);
  if (result.ok) {
    expect(result.message.content).toBe("finally");
    expect(result.tries).toBe(tries);
  }
}

describe("retries over HTTP (OpenAI wire)", () => {
  it("honours Retry-After seconds on 429", async () => {
    const limited: FakeBehaviour = {
      type: "error",
      status: 429,
      body: openaiErrorBody("Rate limit reached", "rate_limit_error"),
      headers: { "retry-after": "7" },
    };
    const { result, waits } = await run([limited, ok]);
    expectSuccess(result, 2);
    expect(waits).toEqual([7000]);
    expect(server.requests).toHaveLength(2);
  });

  it("prefers retry-after-ms, and caps a long Retry-After at max_delay", async () => {
    const { result, waits } = await run([
      { type: "error", status: 429, body: {}, headers: { "retry-after-ms": "1500", "retry-after": "2" } },
      { type: "error", status: 429, body: {}, headers: { "retry-after": "120" } },
      ok,
    ]);
    expectSuccess(result, 3);
    expect(waits).toEqual([1500, 30_000]);
  });

  it("backs off exponentially on 5xx, then succeeds", async () => {
    const { result, waits } = await run(
      [
        { type: "error", status: 500, body: openaiErrorBody("boom", "server_error") },
        { type: "error", status: 502, body: "<html>Bad Gateway</html>" },
        { type: "error", status: 503, body: {} },
        ok,
      ],
      { retry: { max_tries: 4, initial_delay: 1, max_delay: 30, max_total: 0 } },
    );
    expectSuccess(result, 4);
    expect(waits).toEqual([1000, 2000, 4000]);
  });

  it("retries a request that hangs past request_timeout", async () => {
    const started = Date.now();
    const { result, waits } = await run([{ type: "hang" }, ok], { request_timeout: 0.3 });
    expectSuccess(result, 2);
    expect(waits).toEqual([1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("retries when the connection closes before a response and when it closes mid-body", async () => {
    const { result } = await run([
      { type: "close" },
      { type: "close", partialBody: '{"id": "chatcmpl-' },
      ok,
    ]);
    expectSuccess(result, 3);
    expect(server.requests).toHaveLength(3);
  });

  it("retries a 200 whose body is not valid JSON", async () => {
    const { result, waits } = await run([{ type: "invalid_json" }, ok]);
    expectSuccess(result, 2);
    expect(waits).toEqual([1000]);
  });

  it("gives up after max_tries with the last error in the message", async () => {
    const overloaded: FakeBehaviour = {
      type: "error",
      status: 503,
      body: openaiErrorBody("Engine overloaded"),
    };
    const { result, waits } = await run([overloaded, overloaded, overloaded, ok]);
    expect(result).toEqual({
      ok: false,
      kind: "retries_exhausted",
      message: "openai/test-model: gave up after 3 tries; last error: HTTP 503: Engine overloaded",
      status: 503,
      tries: 3,
    });
    expect(waits).toEqual([1000, 2000]);
    expect(server.pending()).toBe(1);
  });

  it("names each kind of last error when giving up", async () => {
    const one = {
      retry: { max_tries: 1, initial_delay: 1, max_delay: 30, max_total: 0 },
      request_timeout: 0.2,
    };
    const cases: Array<[FakeBehaviour, string]> = [
      [{ type: "hang" }, "no response within 0.2 s (model.request_timeout)"],
      [{ type: "close" }, "connection failed: socket hang up (ECONNRESET)"],
      [
        { type: "close", partialBody: '{"id":' },
        "connection failed: the connection closed before the response was complete (ECONNRESET)",
      ],
      [
        { type: "invalid_json", body: "<html>oops" },
        "HTTP 200 with a body that is not valid JSON: <html>oops",
      ],
      [
        { type: "error", status: 502, body: "<html>Bad Gateway</html>" },
        "HTTP 502: <html>Bad Gateway</html>",
      ],
      [{ type: "error", status: 504, body: "" }, "HTTP 504: (empty body)"],
    ];
    for (const [behaviour, last] of cases) {
      const { result } = await run([behaviour], one);
      expect(result.ok === false && result.message).toBe(
        `openai/test-model: gave up after 1 try; last error: ${last}`,
      );
    }
  });

  it("retries when nothing listens, and says so", async () => {
    const closed = await startFakeLlmServer();
    await closed.close();
    const { sleep, waits } = recordingSleep();
    const model = createModel(modelConfig({ base_url: `${closed.url}/v1` }), {
      env: {},
      sleep,
      random: () => 1,
    });
    const result = await model.query({ messages: [{ role: "user", content: "x" }] });
    expect(result).toEqual({
      ok: false,
      kind: "retries_exhausted",
      message: `openai/test-model: gave up after 3 tries; last error: connection failed: connect ECONNREFUSED ${closed.url.slice("http://".length)}`,
      status: undefined,
      tries: 3,
    });
    expect(waits).toEqual([1000, 2000]);
  });

  it("waits as long as the server takes, within request_timeout", async () => {
    const { result, waits } = await run([{ type: "reply", content: "finally", delayMs: 400 }], {
      request_timeout: 2,
    });
    expectSuccess(result, 1);
    expect(waits).toEqual([]);
  });

  it("does not retry 400, 401, 403, 404 and 422", async () => {
    const cases: Array<[number, string]> = [
      [400, "HTTP 400: Invalid value for 'tool_choice'"],
      [401, "HTTP 401: Invalid value for 'tool_choice' (check the API key and model.api_key_env)"],
      [403, "HTTP 403: Invalid value for 'tool_choice' (check the API key and model.api_key_env)"],
      [
        404,
        `HTTP 404: Invalid value for 'tool_choice' (requested ${server.url}/v1/chat/completions; check model.base_url and the model name)`,
      ],
      [422, "HTTP 422: Invalid value for 'tool_choice'"],
    ];
    for (const [status, message] of cases) {
      const before = server.requests.length;
      const { result, waits } = await run([
        { type: "error", status, body: openaiErrorBody("Invalid value for 'tool_choice'") },
      ]);
      expect(result).toEqual({
        ok: false,
        kind: "fatal",
        message: `openai/test-model: ${message} (not retried)`,
        status,
        tries: 1,
      });
      expect(waits).toEqual([]);
      expect(server.requests.length).toBe(before + 1);
    }
  });

  it("reports context-length errors of OpenAI, vLLM and llama.cpp as context_exceeded, never retried", async () => {
    const cases: Array<[unknown, string]> = [
      [
        openaiContextLengthBody(),
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
      ],
      [
        vllmContextLengthBody(),
        "This model's maximum context length is 32768 tokens. However, you requested 34816 tokens (32768 in the messages, 2048 in the completion). Please reduce the length of the messages or completion.",
      ],
      [llamaCppContextLengthBody(), "the request exceeds the available context size, try increasing it"],
    ];
    const lengths = [128000, 32768, 8192];
    for (const [i, [body, serverText]] of cases.entries()) {
      const { result, waits } = await run([{ type: "error", status: 400, body }]);
      expect(result).toEqual({
        ok: false,
        kind: "context_exceeded",
        message: `openai/test-model: context length exceeded (HTTP 400: ${serverText})`,
        status: 400,
        tries: 1,
        contextLength: lengths[i],
      });
      expect(waits).toEqual([]);
    }
    expect(server.requests).toHaveLength(3);
  });

  it("returns aborted when the signal fires during a request", async () => {
    server.enqueue({ type: "hang" });
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), { env: {} });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await model.query({
      messages: [{ role: "user", content: "x" }],
      signal: controller.signal,
    });
    expect(result).toEqual({
      ok: false,
      kind: "aborted",
      message: "openai/test-model: request aborted",
      tries: 1,
    });
  });

  it("returns aborted when the signal fires while waiting to retry", async () => {
    server.enqueue({ type: "error", status: 500, body: {} }, ok);
    const controller = new AbortController();
    const waits: number[] = [];
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), {
      env: {},
      random: () => 0,
      sleep: (ms) => {
        waits.push(ms);
        controller.abort();
        return new Promise(() => {});
      },
    });
    const result = await model.query({
      messages: [{ role: "user", content: "x" }],
      signal: controller.signal,
    });
    expect(result).toEqual({
      ok: false,
      kind: "aborted",
      message: "openai/test-model: request aborted",
      tries: 1,
    });
    expect(waits).toEqual([500]);
    expect(server.pending()).toBe(1);
  });

  it("does not send anything when the signal is already aborted", async () => {
    const model = createModel(modelConfig({ base_url: `${server.url}/v1` }), { env: {} });
    const result = await model.query({
      messages: [{ role: "user", content: "x" }],
      signal: AbortSignal.abort(),
    });
    expect(result).toEqual({
      ok: false,
      kind: "aborted",
      message: "openai/test-model: request aborted",
      tries: 0,
    });
    expect(server.requests).toHaveLength(0);
  });
});
