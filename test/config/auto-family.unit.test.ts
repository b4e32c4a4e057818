import { describe, expect, it } from "vitest";
import { flagLayer, loadConfig } from "../../src/config/load.js";
import { familyFromName } from "../../src/config/model-family.js";

/** `loadConfig` as `-c ARGS -m MODEL` loads it, with what the server listed. */
const load = (model: string, configArgs: string[] = [], serverNames: string[] = []) =>
  loadConfig({
    configArgs,
    defaultConfig: "default",
    flagLayers: [flagLayer(`-m ${model}`, "model.model_name", model)],
    serverNames,
  });

describe("the family from the model's name", () => {
  it.each([
    ["Qwen/Qwen3-8B", "qwen3"],
    ["Qwen/Qwen3.5-27B", "qwen3"],
    ["Qwen/Qwen3.6-35B-A3B", "qwen3"],
    ["unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF", "qwen3"],
    ["google/gemma-4-26b-a4b-it", "gemma4"],
    ["gemma4:31b", "gemma4"],
    ["openai/gpt-oss-120b", "gpt_oss"],
    ["zai-org/GLM-4.6", "glm"],
    ["zai-org/GLM-4.5-Air-FP8", "glm"],
    ["moonshotai/Kimi-K2-Thinking", "kimi_k2"],
    ["MiniMaxAI/MiniMax-M2", "minimax_m2"],
    ["deepseek-ai/DeepSeek-V4-Flash", "deepseek_v4"],
    ["deepseek-v4-pro", "deepseek_v4"],
    ["/models/DeepSeek-V4.1-Flash-1017", "deepseek_v4"],
  ])("%s is %s", (name, layer) => {
    expect(familyFromName(name)?.layer).toBe(layer);
  });

  it.each([
    "Qwen/Qwen2.5-Coder-32B",
    "Qwen/Qwen30-x",
    "google/gemma-3-27b-it",
    "zai-org/GLM-4-9B",
    "my-model",
    "gpt-4o",
  ])("%s names no family", (name) => {
    expect(familyFromName(name)).toBeNull();
  });

  it("applies the named family's preset right after the built-in config, under every -c", () => {
    const loaded = load("openai/Qwen/Qwen3.6-35B-A3B", [
      "model.model_kwargs.chat_template_kwargs.enable_thinking=false",
    ]);
    expect(loaded.sources).toEqual([
      "configs/base.yaml",
      'built-in config "default"',
      'family preset "qwen3" (from the model name)',
      "-c model.model_kwargs.chat_template_kwargs.enable_thinking=false",
      "-m openai/Qwen/Qwen3.6-35B-A3B",
    ]);
    const m = loaded.config.model;
    expect([m.family, m.reasoning_history, m.model_kwargs.chat_template_kwargs]).toEqual([
      "qwen3",
      "chain",
      { enable_thinking: false },
    ]);
    expect(loaded.family?.line).toBe(
      'model family Qwen3 (from the model name "Qwen/Qwen3.6-35B-A3B"): applying the qwen3 preset (configs/qwen3.yaml) under your -c layers; -c model.family=none turns this off',
    );
  });

  it("goes under a recipe named with -c too", () => {
    const loaded = load("openai/deepseek-ai/DeepSeek-V4-Flash", ["swebench_edittool_budget"]);
    expect(loaded.sources.slice(0, 3)).toEqual([
      "configs/base.yaml",
      'family preset "deepseek_v4" (from the model name)',
      'built-in config "swebench_edittool_budget"',
    ]);
    expect(loaded.config.model.model_kwargs).toEqual({
      temperature: 0.3,
      chat_template_kwargs: { thinking: true, enable_thinking: true },
    });
    expect(loaded.config.model.family).toBe("deepseek_v4");
  });

  it("an explicit layer wins, and model.family=none turns it off", () => {
    const gemma = load("openai/Qwen/Qwen3-8B", ["gemma4"]);
    expect([gemma.config.model.family, gemma.family]).toEqual(["gemma4", null]);
    const set = load("openai/Qwen/Qwen3-8B", ["model.family=glm", "model.reasoning_history=chain"]);
    expect([set.config.model.family, set.family]).toEqual(["glm", null]);
    const off = load("openai/Qwen/Qwen3-8B", ["model.family=none"]);
    expect([off.config.model.family, off.config.model.reasoning_history, off.family]).toEqual([
      "none",
      "drop",
      null,
    ]);
    expect(off.sources).not.toContain('family preset "qwen3" (from the model name)');
  });

  it("an unknown name, a gguf: file or an Anthropic model runs as before", () => {
    for (const model of [
      "openai/my-model",
      "gguf:/models/Qwen3-8B-Q4_K_M.gguf",
      "anthropic/claude-sonnet-4-5",
    ]) {
      const loaded = load(model);
      expect([loaded.family, loaded.config.model.family, loaded.config.model.reasoning_history]).toEqual([
        null,
        null,
        "drop",
      ]);
      expect(loaded.sources).toEqual(["configs/base.yaml", 'built-in config "default"', `-m ${model}`]);
    }
  });

  it("a family without a preset is said, and changes nothing", () => {
    const loaded = load("openai/deepseek-ai/DeepSeek-V3.2");
    expect(loaded.family?.line).toBe(
      'model family DeepSeek V3/R1 (from the model name "deepseek-ai/DeepSeek-V3.2"): patchloop has no preset for it, so the run goes as configured',
    );
    expect(loaded.config.model.family).toBeNull();
  });

  it("an alias is resolved by what the server's /models lists for it", () => {
    const loaded = load("openai/coder", [], ["/models/DeepSeek-V4-Flash"]);
    expect(loaded.config.model.family).toBe("deepseek_v4");
    expect(loaded.sources[2]).toBe('family preset "deepseek_v4" (from the server\'s /models)');
    expect(loaded.family?.line).toBe(
      'model family DeepSeek V4 (from the server\'s /models: "coder" is "/models/DeepSeek-V4-Flash"): applying the deepseek_v4 preset (configs/deepseek_v4.yaml) under your -c layers; -c model.family=none turns this off',
    );
  });
});
