import { describe, expect, it } from "vitest";
import { createModel } from "../../src/models/factory/create-model.js";
import { costOf, createCostFunction, knownPrice } from "../../src/models/pricing.js";
import { modelConfig } from "./helpers.js";

const usage = { prompt_tokens: 1_000_000, completion_tokens: 100_000 };

function collector(): { warn: (m: string) => void; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (m: string) => warnings.push(m) };
}

describe("pricing", () => {
  it("finds table prices for names and their dated snapshots, not for other variants", () => {
    expect(knownPrice("openai/gpt-4o")).toEqual({ input_per_mtok: 2.5, output_per_mtok: 10 });
    expect(knownPrice("openai/gpt-4o-2024-08-06")).toEqual({ input_per_mtok: 2.5, output_per_mtok: 10 });
    expect(knownPrice("openai/gpt-4o-mini")).toEqual({ input_per_mtok: 0.15, output_per_mtok: 0.6 });
    expect(knownPrice("openai/gpt-5-mini")).toEqual({ input_per_mtok: 0.25, output_per_mtok: 2 });
    expect(knownPrice("anthropic/claude-sonnet-4-5-20250929")).toEqual({
      input_per_mtok: 3,
      output_per_mtok: 15,
    });
    expect(knownPrice("anthropic/claude-opus-4-1-20250805")).toEqual({
      input_per_mtok: 15,
      output_per_mtok: 75,
    });
    expect(knownPrice("anthropic/claude-opus-4-5")).toEqual({ input_per_mtok: 5, output_per_mtok: 25 });
    expect(knownPrice("anthropic/claude-3-5-haiku-latest")).toEqual({
      input_per_mtok: 0.8,
      output_per_mtok: 4,
    });
    expect(knownPrice("openai/gpt-4o-audio-preview")).toBeNull();
    expect(knownPrice("anthropic/claude-sonnet-4-5-thinking")).toBeNull();
    expect(knownPrice("openai/qwen3-coder")).toBeNull();
  });

  it("computes USD from tokens", () => {
    expect(
      costOf({ prompt_tokens: 1500, completion_tokens: 500 }, { input_per_mtok: 2, output_per_mtok: 8 }),
    ).toBe(0.007);
  });

  it("charges a local endpoint 0, even for a model name in the table, and warns about nothing", () => {
    const { warn, warnings } = collector();
    const cost = createCostFunction({
      qualifiedName: "openai/gpt-4o",
      hosted: false,
      price: null,
      costTracking: "default",
      warn,
    });
    expect(cost(usage)).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("uses a configured price over the table", () => {
    const cost = createCostFunction({
      qualifiedName: "openai/gpt-4o",
      hosted: true,
      price: { input_per_mtok: 1, output_per_mtok: 2 },
      costTracking: "default",
      warn: () => {},
    });
    expect(cost(usage)).toBe(1.2);
  });

  it("uses the table for a hosted model", () => {
    const cost = createCostFunction({
      qualifiedName: "anthropic/claude-sonnet-4-5",
      hosted: true,
      price: null,
      costTracking: "default",
      warn: () => {},
    });
    expect(cost(usage)).toBe(4.5);
  });

  it("warns exactly once per unknown hosted model name and counts 0", () => {
    const { warn, warnings } = collector();
    const setup = { hosted: true, price: null, costTracking: "default" as const, warn };
    const a = createCostFunction({ ...setup, qualifiedName: "openai/gpt-9" });
    createCostFunction({ ...setup, qualifiedName: "openai/gpt-9" });
    createCostFunction({ ...setup, qualifiedName: "anthropic/claude-next" });
    expect(a(usage)).toBe(0);
    expect(warnings).toEqual([
      "no price known for openai/gpt-9: its cost is counted as 0, so agent.cost_limit cannot stop it. Set model.price {input_per_mtok, output_per_mtok}, or model.cost_tracking: ignore_errors to silence this.",
      "no price known for anthropic/claude-next: its cost is counted as 0, so agent.cost_limit cannot stop it. Set model.price {input_per_mtok, output_per_mtok}, or model.cost_tracking: ignore_errors to silence this.",
    ]);
  });

  it("stays quiet with cost_tracking ignore_errors", () => {
    const { warn, warnings } = collector();
    createCostFunction({
      qualifiedName: "openai/gpt-9",
      hosted: true,
      price: null,
      costTracking: "ignore_errors",
      warn,
    });
    expect(warnings).toEqual([]);
  });

  it("warns once through createModel for a hosted model without a price (no request made)", () => {
    const { warn, warnings } = collector();
    const env = { OPENAI_API_KEY: "sk-test" };
    createModel(modelConfig({ model_name: "openai/gpt-unknown" }), { env, warn });
    createModel(modelConfig({ model_name: "openai/gpt-unknown" }), { env, warn });
    createModel(modelConfig({ model_name: "openai/gpt-4.1" }), { env, warn });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^no price known for openai\/gpt-unknown: /);
  });
});
