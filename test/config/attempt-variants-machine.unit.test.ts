import { describe, expect, it } from "vitest";
import { attemptConfig } from "../../src/config/attempt-variants.js";
import { flagLayer, loadConfig } from "../../src/config/load.js";

/**
 * Every attempt runs on the run's machine settings (issue 40, item 3): before, variants naming the
 * built-in swebench configs replaced `--environment local` with their docker settings, after the
 * preflight had passed for local, and every attempt failed.
 */
const load = (variants: string, ...args: string[]) =>
  loadConfig({
    configArgs: [
      "swebench",
      "model.model_name=openai/fake",
      "run.attempts=2",
      `run.attempt_variants=${variants}`,
      ...args,
    ],
    defaultConfig: "swebench",
    flagLayers: [flagLayer("--environment local", "environment.environment_class", "local")],
  });

describe("attempt variants and the run's machine settings", () => {
  it("named configs keep their agent settings; their machine settings give way to the command line's, said once", () => {
    const { config, warnings } = load("[swebench_backticks, swebench_edittool_budget]");
    expect(attemptConfig(config, 1).environment.environment_class).toBe("local");
    expect(attemptConfig(config, 2).environment.environment_class).toBe("local");
    expect(attemptConfig(config, 1).agent.protocol).toBe("backticks");
    expect(attemptConfig(config, 1).agent.tools).toEqual(["bash"]);
    expect(attemptConfig(config, 2).agent.tools).toEqual(["bash", "edit_tool"]);
    expect(warnings).toEqual([
      'run.attempt_variants[0] (swebench_backticks): environment.environment_class "docker" left out: every attempt runs on the run\'s machine settings (environment.environment_class "local")',
      'run.attempt_variants[1] (swebench_edittool_budget): environment.environment_class "docker" left out: every attempt runs on the run\'s machine settings (environment.environment_class "local")',
    ]);
    // What run.json and the jobs carry holds no machine key of the variants.
    for (const v of config.run.attempt_variants) expect(JSON.stringify(v)).not.toContain("environment_class");
  });

  it("a map that sets a machine key differently is a config error naming the variant and the key", () => {
    expect(() => load("[{}, {environment: {environment_class: docker}}]")).toThrow(
      'run.attempt_variants[1] sets environment.environment_class to "docker", but the run\'s is "local": every attempt runs on the run\'s machine settings',
    );
    expect(() => load("[{environment: {binds: ['/home:/home:rw']}}]")).toThrow(
      'run.attempt_variants[0] sets environment.binds to ["/home:/home:rw"], but the run\'s is []',
    );
  });

  it("a map that repeats the run's own value is fine and says nothing; model settings may vary (no queue)", () => {
    const { config, warnings } = load(
      "[{environment: {environment_class: local}}, {model: {model_name: openai/other, base_url: 'http://127.0.0.1:9/v1'}}]",
    );
    expect(warnings).toEqual([]);
    expect(attemptConfig(config, 1).environment.environment_class).toBe("local");
    expect(attemptConfig(config, 2).model.base_url).toBe("http://127.0.0.1:9/v1");
    expect(attemptConfig(config, 2).environment.environment_class).toBe("local");
  });
});
