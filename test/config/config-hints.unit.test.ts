import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";

/** The error `loadConfig` throws for the swebench config with `args` laid over it. */
function errorOf(...args: string[]): string {
  try {
    loadConfig({ configArgs: ["swebench", "model.model_name=m", ...args], defaultConfig: "swebench" });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`no error for ${args.join(" ")}`);
}

describe("did-you-mean for keys that are no misspelling (issue 40, item 5)", () => {
  it("a request field under model points to model.model_kwargs, at the top and in an attempt variant", () => {
    expect(errorOf("model.temperature=0.7")).toContain(
      "unknown key model.temperature (from -c model.temperature=0.7): did you mean model.model_kwargs.temperature? " +
        "Fields sent with every request to the model server go under model.model_kwargs. Valid keys in model: model_name,",
    );
    // base.yaml's own example of a variant
    expect(errorOf("run.attempts=2", "run.attempt_variants=[{model: {temperature: 0.7}}]")).toContain(
      "unknown key model.temperature (from run.attempt_variants[0]): did you mean model.model_kwargs.temperature?",
    );
    expect(() =>
      loadConfig({
        configArgs: [
          "swebench",
          "model.model_name=m",
          "run.attempts=2",
          "run.attempt_variants=[{model: {model_kwargs: {temperature: 0.7}}}]",
        ],
        defaultConfig: "swebench",
      }),
    ).not.toThrow();
  });

  it("a key of another section is named where it belongs", () => {
    expect(errorOf("agent.network=none")).toContain(
      "unknown key agent.network (from -c agent.network=none): did you mean environment.network? Valid keys in agent:",
    );
  });

  it("model.price of a wrong shape lists its keys", () => {
    expect(errorOf("model.price=0.5")).toBe(
      "invalid config:\n  - model.price (from -c model.price=0.5): expected object, got number 0.5. " +
        "Valid keys in model.price: input_per_mtok, output_per_mtok",
    );
    expect(errorOf("model.price={input: 1, output_per_mtok: 2}")).toContain(
      "unknown key model.price.input (from -c model.price={input: 1, output_per_mtok: 2}): did you mean " +
        "model.price.input_per_mtok? Valid keys in model.price: input_per_mtok, output_per_mtok",
    );
  });
});
