import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { REASONING_FAMILIES, reasoningPolicy } from "../../src/models/reasoning-chain.js";
import type { ChatMessage } from "../../src/models/types.js";

const load = (...configArgs: string[]) => loadConfig({ configArgs, defaultConfig: "default" });
const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected an error");
};

const call = (reasoning: string): ChatMessage => ({
  role: "assistant",
  content: null,
  reasoning,
  tool_calls: [{ id: reasoning, type: "function", function: { name: "bash", arguments: "{}" } }],
});
const tool: ChatMessage = { role: "tool", tool_call_id: "x", content: "out" };

describe("reasoningPolicy", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "s" },
    { role: "user", content: "task" },
    call("a"),
    tool,
    { role: "assistant", content: "no call", reasoning: "b" },
    { role: "user", content: "format error" },
    call("c"),
    tool,
  ];

  it("drop sends none, keep sends every reasoning", () => {
    expect(reasoningPolicy("drop", null)(messages)).toEqual(messages.map(() => false));
    expect(reasoningPolicy("keep", null)(messages)).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it("chain keeps what follows the last user message, or the last final answer", () => {
    const expected = [false, false, false, false, false, false, true, false];
    for (const family of REASONING_FAMILIES)
      expect(reasoningPolicy("chain", family)(messages)).toEqual(expected);
    const noticed: ChatMessage[] = [
      { role: "user", content: "task" },
      call("a"),
      tool,
      { role: "user", content: "5 steps left" },
      call("b"),
      tool,
    ];
    expect(reasoningPolicy("chain", "qwen3")(noticed)).toEqual([false, false, false, false, true, false]);
    expect(reasoningPolicy("chain", "gpt_oss")(noticed)).toEqual([false, true, false, false, true, false]);
    expect(reasoningPolicy("chain", "kimi_k2")(noticed)).toEqual([false, true, false, false, true, false]);
  });

  it("Qwen3 counts a user message wrapped in <tool_response> as a tool result, as its template does", () => {
    const wrapped: ChatMessage[] = [
      { role: "user", content: "task" },
      call("a"),
      { role: "user", content: "<tool_response>\nout\n</tool_response>" },
    ];
    expect(reasoningPolicy("chain", "qwen3")(wrapped)).toEqual([false, true, false]);
    expect(reasoningPolicy("chain", "glm")(wrapped)).toEqual([false, false, false]);
  });

  it("Gemma 4 keeps only tool-call turns inside the chain; Qwen3 any turn", () => {
    const text: ChatMessage[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "hi", reasoning: "r" },
    ];
    expect(reasoningPolicy("chain", "gemma4")(text)).toEqual([false, false]);
    expect(reasoningPolicy("chain", "qwen3")(text)).toEqual([false, true]);
  });

  it("chain without a family is a configuration error", () => {
    expect(errorOf(() => reasoningPolicy("chain", null))).toBe(
      "model.reasoning_history is chain but model.family is null: set model.family to one of qwen3, gemma4, gpt_oss, glm, kimi_k2, minimax_m2, deepseek_v4, claude (docs/models.md), or use keep or drop",
    );
  });
});

describe("the family presets and their config errors", () => {
  it("each family preset sets chain and its family, shown in the loaded config", () => {
    const presets = {
      qwen3: "qwen3",
      gemma4: "gemma4",
      gpt_oss: "gpt_oss",
      glm: "glm",
      kimi_k2: "kimi_k2",
      minimax_m2: "minimax_m2",
      deepseek_v4: "deepseek_v4",
    };
    for (const [preset, family] of Object.entries(presets)) {
      const { model } = load("swebench", preset).config;
      expect([preset, model.reasoning_history, model.family]).toEqual([preset, "chain", family]);
    }
    expect(load("swebench", "gpt_oss").config.model.api).toBe("responses");
    expect(load("swebench").config.model).toMatchObject({
      reasoning_history: "drop",
      family: null,
      api: "chat",
    });
  });

  it("chain without a family, and values that are not one, are errors that say what to set", () => {
    expect(errorOf(() => load("swebench", "model.reasoning_history=chain"))).toContain(
      "model.reasoning_history is chain, which keeps the reasoning of the current tool-call chain as the model's chat template does, but model.family is null: set it to one of qwen3, gemma4, gpt_oss, glm, kimi_k2, minimax_m2, deepseek_v4, claude (docs/models.md), or use reasoning_history keep or drop",
    );
    const family = errorOf(() => load("swebench", "model.family=qwen2"));
    expect(family).toContain("model.family");
    expect(family).toContain('"qwen2"');
    expect(family).toContain("qwen3");
    const history = errorOf(() => load("swebench", "model.reasoning_history=chains"));
    expect(history).toContain("model.reasoning_history");
    expect(history).toContain("chain");
  });
});
