import { afterEach, describe, expect, it } from "vitest";
import { doctorCommand } from "../../src/cli/doctor.js";
import {
  DEEPSEEK_MISSING_REASONING,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  type FakeReplySpec,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";

/**
 * `patchloop doctor` against fake servers on 127.0.0.1 (src/testing/): one that works, one whose
 * tool calls come back empty (written as text, no tool-call parser), one that refuses the reasoning
 * round trip (DeepSeek's API, 400 without the chain's reasoning_content), one without GET /models.
 */

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const call: FakeReplySpec = {
  content: null,
  toolCalls: [{ name: "bash", arguments: { command: "echo ready" } }],
  reasoning: "The user wants echo ready.",
};

async function doctor(options: FakeLlmServerOptions, replies: FakeReplySpec[], configArgs: string[] = []) {
  const server = await startFakeLlmServer(options);
  servers.push(server);
  server.enqueue(...replies.map((r) => ({ type: "reply" as const, ...r })));
  let text = "";
  const code = await doctorCommand(
    { config: configArgs, model: "openai/fake-model", baseUrl: `${server.url}/v1`, timeout: "10" },
    (t) => {
      text += t;
    },
  );
  return { code, text: text.replaceAll(server.url, "http://127.0.0.1:PORT"), server };
}

const lines = (text: string) => text.trimEnd().split("\n");

describe("patchloop doctor", () => {
  it("(a) a server that works: exit 0", async () => {
    const { code, text } = await doctor(
      { flavor: "vllm" },
      [
        { ...call, usage: { prompt_tokens: 1700, cached_tokens: 0 } },
        { ...call, usage: { prompt_tokens: 1700, cached_tokens: 1696 } },
        { ...call, usage: { prompt_tokens: 1700, cached_tokens: 1696 } },
        { content: "done", reasoning: "It printed ready." },
      ],
      ["qwen3"],
    );
    expect(lines(text)).toEqual(
      [
        "patchloop doctor: fake-model at http://127.0.0.1:PORT/v1 (protocol tool_calls, family qwen3, reasoning_history chain)",
        "ok    answers: GET /models in MS ms (owned_by vllm)",
        'ok    serves the model: "fake-model" is listed',
        "ok    context: 32768 tokens (max_model_len in GET /models); max_tokens unset",
        "ok    tool calls: 3 of 3 came back as calls (0 empty, 0 malformed)",
        "ok    reasoning: apart, in `reasoning` (3 of 3 replies)",
        "ok    reasoning round trip: accepted (reasoning_history chain, family qwen3; its reasoning was sent back as the family's template keeps it)",
        "ok    prefix cache: 1696 of 1700 prompt tokens served from cache on the repeat",
        "--    metrics: GET http://127.0.0.1:PORT/metrics: HTTP 404",
        "verdict: the run would work (exit 0)",
      ].map((l) =>
        l.includes("GET /models in")
          ? expect.stringMatching(/^ok {4}answers: GET \/models in \d+ ms \(owned_by vllm\)$/)
          : l,
      ),
    );
    expect(code).toBe(0);
  });

  it("(b) tool calls that come back empty: exit 1, backticks recommended", async () => {
    const asText: FakeReplySpec = {
      content: '<tool_call>\n{"name": "bash", "arguments": {"command": "echo ready"}}\n</tool_call>',
    };
    const { code, text } = await doctor({ flavor: "vllm" }, [asText, asText, asText]);
    expect(lines(text).slice(4)).toEqual([
      "FAIL  tool calls: 0 of 3 came back as calls (3 empty, 3 of them a call written in the text: the server parsed no tool call, 0 malformed)",
      "--    reasoning: none came back (3 replies)",
      "--    reasoning round trip: not tried: no tool call came back",
      "--    prefix cache: usage reports no cached_tokens; cannot tell",
      "--    metrics: GET http://127.0.0.1:PORT/metrics: HTTP 404",
      "recommendations:",
      "  - protocol: tool calls are unreliable on this server: use backticks (-c swebench_backticks, or -c agent.protocol=backticks), which needs no tool-call parser; or serve with --enable-auto-tool-choice and the model's --tool-call-parser",
      "  - prefix cache: vLLM reports cached_tokens with --enable-prompt-tokens-details (keep --enable-prefix-caching on)",
      "  - family: none set and none named by the model's name: if it is Qwen3, Gemma 4, gpt-oss, GLM, Kimi K2, MiniMax M2 or DeepSeek V4, add its preset (-c qwen3, -c gemma4, ...; docs/models.md)",
      "verdict: the run would not work (exit 1): tool calls came back empty or malformed in 3 of 3 requests: with agent.protocol tool_calls the run would end in format errors",
    ]);
    expect(code).toBe(1);
    // with the backticks protocol the same server is fine: tool calls are not needed
    const backticks = await doctor({ flavor: "vllm" }, [asText, asText, asText], ["swebench_backticks"]);
    expect(lines(backticks.text)).toContain(
      "--    tool calls: 0 of 3 came back as calls (3 empty, 3 of them a call written in the text: the server parsed no tool call, 0 malformed) (the run uses backticks and needs none)",
    );
    expect(backticks.code).toBe(0);
  });

  it("(c) a server that refuses the reasoning round trip (DeepSeek's 400): exit 1; its family fixes it", async () => {
    const replies = [call, call, call, { content: "done", reasoning: "ok" }];
    const { code, text, server } = await doctor({ flavor: "deepseek" }, replies);
    const refused = `openai/fake-model: HTTP 400: ${DEEPSEEK_MISSING_REASONING} (not retried)`;
    expect(lines(text).slice(3, 7)).toEqual([
      "--    context: not reported in GET /models; max_tokens unset",
      "ok    tool calls: 3 of 3 came back as calls (0 empty, 0 malformed)",
      "ok    reasoning: apart, in `reasoning_content` (3 of 3 replies)",
      `FAIL  reasoning round trip: refused (reasoning_history drop): ${refused}`,
    ]);
    expect(lines(text)).toContain(
      "  - reasoning round trip: the server wants the reasoning back (DeepSeek V4 answers 400 without it): set the family (-c deepseek_v4, or -c model.reasoning_history=chain -c model.family=<family>)",
    );
    expect(lines(text).at(-1)).toBe(
      `verdict: the run would not work (exit 1): the server refuses the request that sends a tool call back (reasoning_history drop): ${refused}; the run would stop at step 2`,
    );
    expect(code).toBe(1);
    expect(server.pending()).toBe(1);
    const fixed = await doctor({ flavor: "deepseek" }, replies, ["deepseek_v4"]);
    expect(lines(fixed.text)).toContain(
      "ok    reasoning round trip: accepted (reasoning_history chain, family deepseek_v4; its reasoning was sent back as the family's template keeps it)",
    );
    expect([fixed.code, fixed.server.pending()]).toEqual([0, 0]);
  });

  it("(d) a server without GET /models: exit 1 (the batch preflight would stop)", async () => {
    const { code, text } = await doctor({ flavor: "vllm", modelList: false }, [
      call,
      call,
      call,
      { content: "done" },
    ]);
    expect(lines(text).slice(1, 3)).toEqual([
      "FAIL  answers: GET http://127.0.0.1:PORT/v1/models: HTTP 404 (no model list)",
      "--    context: not reported; max_tokens unset",
    ]);
    expect(lines(text)).toContain(
      "ok    reasoning round trip: accepted (reasoning_history drop; its reasoning was not sent back)",
    );
    expect(lines(text).at(-1)).toBe(
      "verdict: the run would not work (exit 1): GET http://127.0.0.1:PORT/v1/models answers 404: `patchloop swebench` checks it before the first instance and would stop; an OpenAI-compatible server's base URL usually ends in /v1",
    );
    expect(code).toBe(1);
  });

  it("a server that does not answer: exit 1 at once", async () => {
    const server = await startFakeLlmServer();
    const url = `${server.url}/v1`;
    await server.close();
    let text = "";
    const code = await doctorCommand(
      { config: [], model: "openai/fake-model", baseUrl: url, timeout: "5" },
      (t) => {
        text += t;
      },
    );
    expect(lines(text.replaceAll(url, "URL"))).toEqual([
      "patchloop doctor: fake-model at URL (protocol tool_calls, family none, reasoning_history drop)",
      "FAIL  answers: no answer from GET URL/models (ECONNREFUSED)",
      "verdict: the run would not work (exit 1): the server at URL does not answer (ECONNREFUSED): start it, or check --base-url",
    ]);
    expect(code).toBe(1);
  });

  it("a user:password in --base-url is masked in every line", async () => {
    const server = await startFakeLlmServer();
    const port = new URL(server.url).port;
    await server.close();
    let text = "";
    await doctorCommand(
      {
        config: [],
        model: "openai/fake-model",
        baseUrl: `http://bob:hunter2secret@127.0.0.1:${port}/v1`,
        timeout: "5",
      },
      (t) => {
        text += t;
      },
    );
    expect(text).not.toContain("hunter2secret");
    expect(lines(text)[0]).toBe(
      `patchloop doctor: fake-model at http://***@127.0.0.1:${port}/v1 (protocol tool_calls, family none, reasoning_history drop)`,
    );
  });
});
