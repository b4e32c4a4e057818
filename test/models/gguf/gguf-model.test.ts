import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBackticksProtocol } from "../../../src/agent/protocols/backticks.js";
import { createToolCallsProtocol } from "../../../src/agent/protocols/tool-calls.js";
import { createModel } from "../../../src/models/factory/create-model.js";
import type { GgufRaw } from "../../../src/models/gguf/gguf-model.js";
import { disposeRuntimes, loadRuntime } from "../../../src/models/gguf/runtime.js";
import type { ChatMessage, ModelResult } from "../../../src/models/types.js";
import { ACTION_LEAN, TINY_CHAT_TEMPLATE, writeTinyModel } from "../../../src/testing/gguf-tiny-model.js";
import { createTools, toolSpecs } from "../../../src/tools/index.js";
import { describeWithGguf } from "../../support/gguf-runtime.js";
import { modelConfig } from "../helpers.js";

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant that can interact with a computer." },
  { role: "user", content: "List the files in the current directory." },
];

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-"));
  path = writeTinyModel(dir, { lean: ACTION_LEAN });
});
afterAll(async () => {
  await disposeRuntimes();
  rmSync(dir, { recursive: true, force: true });
});

function ggufModel(kwargs: Record<string, unknown> = {}, contextSize = 4096) {
  return createModel(
    modelConfig({
      model_name: `gguf:${path}`,
      model_kwargs: { temperature: 1, seed: 7, max_tokens: 2000, ...kwargs },
      gguf: { ...modelConfig().gguf, context_size: contextSize, threads: 1, gpu_layers: 0, sequences: 2 },
    }),
  );
}

function ok(r: ModelResult): Extract<ModelResult, { ok: true }> {
  if (!r.ok) throw new Error(`query failed: ${r.kind}: ${r.message}`);
  return r;
}

const raw = (r: Extract<ModelResult, { ok: true }>) => r.raw as GgufRaw;

describeWithGguf("the embedded GGUF model", () => {
  const backticks = createBackticksProtocol("bash", null);
  const specs = toolSpecs(createTools(["bash", "str_replace_editor"]));
  const toolCalls = createToolCallsProtocol(specs);

  it("writes exactly one fenced block when the backticks grammar constrains it", async () => {
    const r = ok(await ggufModel().query({ messages: MESSAGES, constraint: backticks.constraint }));
    const parsed = backticks.parse(r.message);
    if (!parsed.ok) throw new Error(`not one action: ${parsed.error}`);
    expect(parsed.actions).toHaveLength(1);
    const text = r.message.content as string;
    expect(text).toContain("```bash\n");
    expect(r.finishReason).toBe("stop");
    expect(r.cost).toBe(0);
    expect(raw(r)).toMatchObject({ text, grammar: "fenced", finish_reason: "stop" });
    expect(r.usage.completion_tokens).toBe(raw(r).completion_tokens);
  }, 60_000);

  it("writes no valid action from the same model without the grammar", async () => {
    const r = ok(await ggufModel({ max_tokens: 300 }).query({ messages: MESSAGES }));
    expect(raw(r).grammar).toBeNull();
    expect(backticks.parse(r.message).ok).toBe(false);
  }, 60_000);

  it("writes one JSON call of a known tool when the tool-call grammar constrains it", async () => {
    const r = ok(
      await ggufModel().query({ messages: MESSAGES, tools: specs, constraint: toolCalls.constraint }),
    );
    expect(r.message.content).toBeNull();
    expect(r.message.tool_calls).toHaveLength(1);
    expect(r.message.tool_calls?.[0]?.id).toBe("call_1");
    expect(r.finishReason).toBe("tool_calls");
    const parsed = toolCalls.parse(r.message);
    if (!parsed.ok) throw new Error(`not a valid call: ${parsed.error}`);
    expect(["bash", "str_replace_editor"]).toContain((parsed.actions[0] as { name: string }).name);
  }, 60_000);

  it("keeps the prompt's prefix in its sequence and evaluates only what was added", async () => {
    const model = ggufModel();
    const first = ok(await model.query({ messages: MESSAGES, constraint: backticks.constraint }));
    const next: ChatMessage[] = [
      ...MESSAGES,
      first.message,
      { role: "user", content: "<returncode>0</returncode>" },
    ];
    const second = ok(await model.query({ messages: next, constraint: backticks.constraint }));
    expect(second.usage.cached_tokens).toBeGreaterThanOrEqual(first.usage.prompt_tokens);
    expect(raw(second).evaluated_tokens).toBe(second.usage.prompt_tokens - (second.usage.cached_tokens ?? 0));
    expect(raw(second).evaluated_tokens).toBeLessThan(
      second.usage.prompt_tokens - first.usage.prompt_tokens + 2,
    );
  }, 60_000);

  it("runs two tasks at once on the two sequences of one context, each keeping its own prefix", async () => {
    const a = ggufModel();
    const b = ggufModel();
    const ask = (who: string): ChatMessage[] => [
      MESSAGES[0] as ChatMessage,
      { role: "user", content: `task of ${who}` },
    ];
    const [a1, b1] = (
      await Promise.all([
        a.query({ messages: ask("a"), constraint: backticks.constraint }),
        b.query({ messages: ask("b"), constraint: backticks.constraint }),
      ])
    ).map(ok);
    const more = (who: string, r: typeof a1): ChatMessage[] => [
      ...ask(who),
      r.message,
      { role: "user", content: "ok" },
    ];
    const [a2, b2] = (
      await Promise.all([
        a.query({ messages: more("a", a1), constraint: backticks.constraint }),
        b.query({ messages: more("b", b1), constraint: backticks.constraint }),
      ])
    ).map(ok);
    expect(a2.usage.cached_tokens).toBeGreaterThanOrEqual(a1.usage.prompt_tokens);
    expect(b2.usage.cached_tokens).toBeGreaterThanOrEqual(b1.usage.prompt_tokens);
  }, 120_000);

  it("gives the context one sequence per task run at once (-w) when model.gguf.sequences is null", async () => {
    const config = modelConfig({
      model_name: `gguf:${path}`,
      model_kwargs: { temperature: 1, seed: 7, max_tokens: 50 },
      gguf: { ...modelConfig().gguf, context_size: 1024, threads: 1, gpu_layers: 0, sequences: null },
    });
    const r = await createModel(config, { parallel: 3 }).query({ messages: MESSAGES });
    expect(r.ok).toBe(true);
    const rt = await loadRuntime({ path, contextSize: 1024, threads: 1, gpuLayers: 0, sequences: 3 });
    expect(rt.pool.sequences).toHaveLength(3);
    // the query ran on this runtime: one of its sequences holds the prompt
    expect(rt.pool.sequences.filter((q) => q.contextTokens.length > 0)).toHaveLength(1);
  }, 60_000);

  it("loads a model file once per process for the same settings", async () => {
    const settings = { path, contextSize: 4096, threads: 1, gpuLayers: 0 as const, sequences: 2 };
    const [x, y] = await Promise.all([loadRuntime(settings), loadRuntime(settings)]);
    expect(x).toBe(y);
    expect(x.pool.sequences).toHaveLength(2);
    expect(x.chatTemplate).toBe(TINY_CHAT_TEMPLATE);
  });

  it("reports a prompt longer than the context as context_exceeded, and an aborted call as aborted", async () => {
    const long: ChatMessage[] = [{ role: "user", content: "word ".repeat(400) }];
    const r = await ggufModel({}, 256).query({ messages: long, constraint: backticks.constraint });
    expect(r).toMatchObject({ ok: false, kind: "context_exceeded", contextLength: 256 });
    if (!r.ok)
      expect(r.message).toMatch(
        /^the prompt has \d+ tokens, and the context of gguf:.* holds 256 \(model.gguf.context_size: raise it, up to the model's 32768\)$/,
      );
    const gone = await ggufModel().query({ messages: MESSAGES, signal: AbortSignal.abort() });
    expect(gone).toMatchObject({ ok: false, kind: "aborted" });
  }, 60_000);
});
