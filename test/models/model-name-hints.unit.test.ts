import { describe, expect, it } from "vitest";
import { parseModelName } from "../../src/config/model-name.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { modelConfig } from "./helpers.js";

describe("model names as users write them", () => {
  it("a bare local model name without a base URL points at --base-url", () => {
    expect(() => createModel(modelConfig({ model_name: "qwen3" }), { env: {}, warn: () => {} })).toThrow(
      'model.model_name qwen3 would go to the hosted OpenAI API (no base URL is set), which does not serve "qwen3". For a local server pass --base-url, e.g. --base-url http://127.0.0.1:8000/v1 (vLLM :8000, SGLang :30000, llama.cpp :8080, Ollama :11434), or set model.base_url / OPENAI_BASE_URL',
    );
  });

  it("litellm's hosted_vllm/NAME is the served model NAME, explained; without a base URL it says what to pass", () => {
    expect(parseModelName("hosted_vllm/Qwen/Qwen3-8B")).toEqual({
      provider: "openai",
      model: "Qwen/Qwen3-8B",
      via: "hosted_vllm",
    });
    const warnings: string[] = [];
    const m = createModel(
      modelConfig({ model_name: "hosted_vllm/Qwen/Qwen3-8B", base_url: "http://127.0.0.1:9/v1" }),
      {
        env: {},
        warn: (w) => warnings.push(w),
      },
    );
    expect(m.name).toBe("openai/Qwen/Qwen3-8B");
    expect(warnings).toEqual([
      'model.model_name hosted_vllm/Qwen/Qwen3-8B: litellm\'s hosted_vllm/ prefix; the model "Qwen/Qwen3-8B" is asked for on an OpenAI-compatible server',
    ]);
    expect(() =>
      createModel(modelConfig({ model_name: "hosted_vllm/x" }), { env: {}, warn: () => {} }),
    ).toThrow(
      /litellm's hosted_vllm\/ prefix means a server of your own, and no base URL is set; pass --base-url/,
    );
  });

  it("ollama/NAME goes to Ollama's default address", () => {
    expect(() =>
      createModel(modelConfig({ model_name: "ollama/qwen3:8b" }), { env: {}, warn: () => {} }),
    ).not.toThrow();
  });

  it("hosted OpenAI names and an OPENAI_BASE_URL keep working", () => {
    expect(() =>
      createModel(modelConfig({ model_name: "openai/gpt-4o" }), { env: { OPENAI_API_KEY: "k" } }),
    ).not.toThrow();
    expect(() =>
      createModel(modelConfig({ model_name: "qwen3" }), {
        env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
      }),
    ).not.toThrow();
  });
});
