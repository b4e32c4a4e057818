import { describe, expect, it } from "vitest";
import { parseModelName } from "../../src/config/model-name.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { modelConfig } from "./helpers.js";

function thrownBy(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return "(nothing thrown)";
}

describe("model names", () => {
  it("parses providers, bare names, slashes in served names and replay paths", () => {
    expect(parseModelName("openai/gpt-4o")).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(parseModelName("qwen3-coder")).toEqual({ provider: "openai", model: "qwen3-coder" });
    expect(parseModelName("openai/Qwen/Qwen3-8B")).toEqual({ provider: "openai", model: "Qwen/Qwen3-8B" });
    expect(parseModelName("anthropic/claude-sonnet-4-5")).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
    });
    expect(parseModelName("replay:runs/a b.traj.json")).toEqual({
      provider: "replay",
      path: "runs/a b.traj.json",
    });
  });

  it("rejects unknown providers and empty names with a way out", () => {
    expect(thrownBy(() => createModel(modelConfig({ model_name: "together/llama-3" }), { env: {} }))).toBe(
      'Unknown model provider "together" in model.model_name "together/llama-3". Use openai/<name> (any OpenAI-compatible server: vLLM, llama.cpp, SGLang, Ollama, ...), anthropic/<name>, or replay:<file>. A served model name that contains a slash needs the prefix: openai/together/llama-3.',
    );
    expect(thrownBy(() => parseModelName(""))).toBe(
      "model.model_name is empty; use openai/<name>, anthropic/<name>, gguf:<file.gguf> or replay:<file>",
    );
    expect(thrownBy(() => parseModelName("anthropic/"))).toBe(
      'model.model_name "anthropic/" has no model after "anthropic/"',
    );
    expect(thrownBy(() => parseModelName("replay:"))).toBe(
      'model.model_name "replay:" names no file; use replay:<trajectory file>',
    );
  });
});

describe("createModel configuration errors", () => {
  it("requires a key for the hosted APIs and names the variable", () => {
    expect(thrownBy(() => createModel(modelConfig({ model_name: "openai/gpt-4o" }), { env: {} }))).toBe(
      "openai/gpt-4o: the environment variable OPENAI_API_KEY is not set (the hosted API at https://api.openai.com/v1 needs a key). Export OPENAI_API_KEY, or set model.api_key_env to the variable that holds the key.",
    );
    expect(thrownBy(() => createModel(modelConfig({ model_name: "anthropic/claude-x" }), { env: {} }))).toBe(
      "anthropic/claude-x: the environment variable ANTHROPIC_API_KEY is not set (the hosted API at https://api.anthropic.com needs a key). Export ANTHROPIC_API_KEY, or set model.api_key_env to the variable that holds the key.",
    );
  });

  it("requires the variable named by api_key_env even for a local server", () => {
    const config = modelConfig({ base_url: "http://127.0.0.1:8000/v1", api_key_env: "VLLM_KEY" });
    expect(thrownBy(() => createModel(config, { env: {} }))).toBe(
      "openai/test-model: the environment variable VLLM_KEY is not set (model.api_key_env names it). Export VLLM_KEY, or set model.api_key_env to the variable that holds the key.",
    );
  });

  it("rejects a base URL that is not a URL and stream: true", () => {
    expect(thrownBy(() => createModel(modelConfig({ base_url: "localhost:8000" }), { env: {} }))).toBe(
      'model.base_url (or OPENAI_BASE_URL) is not an http(s) URL: received "localhost:8000"; expected e.g. http://127.0.0.1:8000/v1',
    );
    const streaming = modelConfig({ base_url: "http://127.0.0.1:8000/v1", model_kwargs: { stream: true } });
    expect(thrownBy(() => createModel(streaming, { env: {} }))).toBe(
      "openai/test-model: model.model_kwargs.stream is true, but patchloop sends non-streaming requests; remove it",
    );
  });

  it("builds models with the configured name and vision flag", () => {
    const m = createModel(
      modelConfig({ model_name: "my-model", base_url: "http://127.0.0.1:9/v1", vision: true }),
      {
        env: {},
      },
    );
    expect([m.name, m.vision]).toEqual(["openai/my-model", true]);
    const a = createModel(modelConfig({ model_name: "anthropic/claude-x", base_url: "http://127.0.0.1:9" }), {
      env: {},
    });
    expect([a.name, a.vision]).toEqual(["anthropic/claude-x", false]);
  });
});
