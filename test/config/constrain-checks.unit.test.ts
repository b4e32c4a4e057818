import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";

const errorOf = (...args: string[]) => {
  try {
    loadConfig({ configArgs: args, defaultConfig: "default" });
    return "";
  } catch (err) {
    return (err as Error).message;
  }
};

describe("model.constrain_actions, checked before any request", () => {
  it("refuses what no server could enforce, naming both settings", () => {
    expect(errorOf("swebench_backticks", "model.constrain_actions=true", "model.server=ollama")).toBe(
      "invalid config:\n  - model.constrain_actions with agent.protocol=backticks needs vLLM, SGLang or llama.cpp; model.server is ollama, which cannot enforce a text format",
    );
    expect(
      errorOf("swebench_backticks", "model.constrain_actions=true", "model.action_regex='<x>(.*?)</x>'"),
    ).toContain(
      "model.constrain_actions enforces the ```agent.action_tag block; it cannot enforce a model.action_regex format",
    );
    expect(errorOf("model.constrain_actions=true", "model.model_kwargs={tool_choice: auto}")).toBe(
      "invalid config:\n  - model.constrain_actions sets the request's constraint itself, but model.model_kwargs already has tool_choice; remove one of them",
    );
    expect(errorOf("model.constrain_actions=true", "model.model_name=anthropic/claude-x")).toContain(
      "model.constrain_actions is for OpenAI-compatible servers",
    );
  });

  it("accepts the combinations that work", () => {
    expect(errorOf("swebench_edittool_budget", "model.constrain_actions=true", "model.server=llamacpp")).toBe(
      "",
    );
    expect(errorOf("model.constrain_actions=true", "model.server=openai")).toBe("");
  });
});
