import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinNames } from "../../src/config/builtin.js";
import { checkTemplates } from "../../src/config/checks.js";
import { flagLayer, loadConfig } from "../../src/config/load.js";
import { redactSecrets } from "../../src/config/redact.js";
import { swebenchRows } from "../support/data.js";
import { tempDir } from "../support/tmp.js";

const load = (...configArgs: string[]) => loadConfig({ configArgs, defaultConfig: "default" });
const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected an error");
};

describe("built-in configs", () => {
  it("are the documented recipes and model-family presets", () => {
    expect(builtinNames()).toEqual([
      "anthropic_minimal",
      "deepseek_v4",
      "default",
      "gemma4",
      "glm",
      "gpt_oss",
      "kimi_k2",
      "minimax_m2",
      "qwen3",
      "swebench",
      "swebench_backticks",
      "swebench_edittool_budget",
      "swebench_edittool_budget_localize",
    ]);
  });

  it("the presets only switch thinking, layered over a recipe", () => {
    const on = (name: string) => load("swebench_edittool_budget", name).config.model;
    expect(on("gemma4").model_kwargs).toEqual({
      temperature: 0.3,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(on("qwen3").model_kwargs).toEqual({
      temperature: 0.3,
      chat_template_kwargs: { enable_thinking: true },
    });
    expect(on("gpt_oss").model_kwargs).toEqual({ temperature: 0.3, reasoning_effort: "medium" });
    expect(
      load(
        "swebench_edittool_budget",
        "qwen3",
        "model.model_kwargs.chat_template_kwargs.enable_thinking=false",
      ).config.model.model_kwargs.chat_template_kwargs,
    ).toEqual({ enable_thinking: false });
  });

  it.each(["default", "swebench", "swebench_backticks", "swebench_edittool_budget", "anthropic_minimal"])(
    "%s loads and renders for a real SWE-bench Lite row",
    (name) => {
      const row = swebenchRows().find((r) => r.instance_id === "django__django-11099")!;
      const { config, warnings } = load(name);
      expect(warnings).toEqual([]);
      expect(() => checkTemplates(config, row)).not.toThrow();
    },
  );

  it("the 26B recipe has its settings", () => {
    const { config } = load("swebench_edittool_budget");
    expect(config.agent.protocol).toBe("backticks");
    expect(config.agent.tools).toEqual(["bash", "edit_tool"]);
    expect(config.agent.step_limit).toBe(100);
    expect(config.model.model_kwargs).toEqual({ temperature: 0.3 });
    expect(config.agent.system_template).toContain("edit-tool str_replace --file");
    expect(config.agent.system_template).toContain("about {{ budget.explore }} exploring");
    expect(config.agent.budget).toEqual({ explore: 0.15, fix_by: 0.4, submit_by: 0.6, final: 0.9 });
  });

  it("anthropic_minimal runs until submission or 200K context tokens", () => {
    const { config } = load("anthropic_minimal");
    expect([config.agent.step_limit, config.agent.cost_limit, config.agent.context_limit]).toEqual([
      0, 0, 200000,
    ]);
    expect(config.agent.tools).toEqual(["bash", "str_replace_editor"]);
  });
});

describe("layering", () => {
  it("applies -c in order: later wins, maps merge, lists replace", () => {
    const dir = tempDir();
    const a = join(dir, "a.yaml");
    writeFileSync(a, "agent:\n  step_limit: 7\n  tools: [bash]\nenvironment:\n  env:\n    FOO: a\n");
    const { config, sources } = load("swebench", a, "agent.step_limit=9", "environment.env.BAR=b");
    expect(config.agent.step_limit).toBe(9);
    expect(config.agent.tools).toEqual(["bash"]);
    expect(config.environment.env.FOO).toBe("a");
    expect(config.environment.env.BAR).toBe("b");
    expect(config.environment.env.PAGER).toBe("cat");
    expect(config.environment.cwd).toBe("/testbed");
    expect(sources).toEqual([
      "configs/base.yaml",
      'built-in config "swebench"',
      a,
      "-c agent.step_limit=9",
      "-c environment.env.BAR=b",
    ]);
  });

  it("applies the command's default config when -c only overrides keys", () => {
    const { sources, config } = load("agent.step_limit=3");
    expect(sources).toEqual(["configs/base.yaml", 'built-in config "default"', "-c agent.step_limit=3"]);
    expect(config.agent.step_limit).toBe(3);
  });

  it("parses override values as YAML", () => {
    const { config } = load(
      "model.model_kwargs={temperature: 0.5, top_k: 20, chat_template_kwargs: {enable_thinking: false}}",
    );
    expect(config.model.model_kwargs).toEqual({
      temperature: 0.5,
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
    });
  });

  it("CLI flags come last", () => {
    const { config } = loadConfig({
      configArgs: ["model.model_name=openai/a"],
      defaultConfig: "default",
      flagLayers: [flagLayer("-m", "model.model_name", "openai/b")],
    });
    expect(config.model.model_name).toBe("openai/b");
  });
});

describe("config errors", () => {
  it("an unknown key names the path, its source and the closest valid key", () => {
    const dir = tempDir();
    const f = join(dir, "mine.yaml");
    writeFileSync(f, "agent:\n  instance_templat: hi\n");
    expect(errorOf(() => load(f))).toBe(
      "invalid config:\n" +
        `  - unknown key agent.instance_templat (from ${f}): did you mean agent.instance_template? ` +
        "Valid keys in agent: system_template, instance_template, step_limit, cost_limit, time_limit, context_limit, protocol, tools, action_tag, max_format_errors, max_actions_per_reply, diff_on_exit, output_limit, bash_mode, length_template, budget, history, localize",
    );
  });

  it("an unknown section is an error", () => {
    expect(errorOf(() => load("agnet.step_limit=3"))).toBe(
      "invalid config:\n  - unknown key agnet (from -c agnet.step_limit=3): did you mean agent? Valid keys at the top level: agent, model, environment, run",
    );
  });

  it("a key of mini-swe-agent v1 in its old place points to the new one", () => {
    expect(errorOf(() => load("agent.format_error_template=x"))).toBe(
      "invalid config:\n  - unknown key agent.format_error_template (from -c agent.format_error_template=x): it belongs at model.format_error_template",
    );
  });

  it("container_timeout takes seconds or a duration, nothing else", () => {
    expect(load("environment.container_timeout=90m").config.environment.container_timeout).toBe(5400);
    expect(errorOf(() => load("environment.container_timeout=soon"))).toBe(
      'invalid config:\n  - environment.container_timeout (from -c environment.container_timeout=soon): expected number, got the string "soon"',
    );
  });

  it("a wrong type names the path and the expected type", () => {
    expect(errorOf(() => load("agent.step_limit=lots"))).toBe(
      'invalid config:\n  - agent.step_limit (from -c agent.step_limit=lots): expected number, got the string "lots"',
    );
    expect(errorOf(() => load("agent.protocol=json"))).toBe(
      'invalid config:\n  - agent.protocol (from -c agent.protocol=json): expected one of "tool_calls", "backticks", got the string "json"',
    );
  });

  it("invalid YAML shows line and column", () => {
    const dir = tempDir();
    const f = join(dir, "bad.yaml");
    writeFileSync(f, "agent:\n  step_limit: 3\n   tools: [bash\n");
    expect(errorOf(() => load(f))).toBe(
      `invalid YAML in ${f}:2:15: Nested mappings are not allowed in compact mappings`,
    );
  });

  it("a missing file, an unknown name and an empty override value", () => {
    expect(errorOf(() => load("/nonexistent/x.yaml"))).toBe("config file not found: /nonexistent/x.yaml");
    expect(errorOf(() => load("swebench_backtick"))).toBe(
      '-c swebench_backtick: not a built-in config, a YAML file or a key=value override. Did you mean "swebench_backticks"? Built-in configs: anthropic_minimal, deepseek_v4, default, gemma4, glm, gpt_oss, kimi_k2, minimax_m2, qwen3, swebench, swebench_backticks, swebench_edittool_budget, swebench_edittool_budget_localize',
    );
    expect(errorOf(() => load("agent.step_limit="))).toBe(
      `-c agent.step_limit=: no value after "=". Give one (e.g. agent.step_limit=100); for an empty string write agent.step_limit="''"`,
    );
  });

  it("a template with a syntax error or an undefined variable", () => {
    expect(errorOf(() => load("agent.system_template='{% if task %}open'"))).toBe(
      "template agent.system_template has a syntax error: unexpected end of template (is a {% if %}, {% for %} or {% set %} block left open?)",
    );
    const msg = errorOf(() => load("agent.instance_template='Fix {{ taks }} in {{ instance.repo }}'"));
    expect(msg).toMatch(
      /^template agent\.instance_template uses undefined variables:\n {2}- taks \(did you mean task\?\)\n {2}available: /,
    );
  });

  it("an undefined attribute of a provided object is an error, in any branch", () => {
    const msg = errorOf(() =>
      load("model.observation_template='{% if false %}{{ output.stdout }}{% endif %}'"),
    );
    expect(msg).toBe(
      "template model.observation_template uses undefined variables:\n  - output.stdout (output has: output, returncode, exception_info, timed_out)\n" +
        msg.slice(msg.indexOf("  available:")),
    );
  });

  it("options of the other protocol are rejected", () => {
    expect(errorOf(() => load("swebench_backticks", "agent.tools=[bash, str_replace_editor]"))).toBe(
      "invalid config:\n  - agent.tools has str_replace_editor, a JSON tool of the tool_calls protocol; with backticks use edit_tool",
    );
    expect(errorOf(() => load("model.action_regex='```x(.*)```'"))).toBe(
      "invalid config:\n  - model.action_regex only applies to agent.protocol=backticks (mini-swe-agent: model.model_class: litellm_textbased); remove it or switch protocol",
    );
    expect(errorOf(() => load("swebench_backticks", "model.action_regex='```(x)(y)```'"))).toBe(
      'invalid config:\n  - model.action_regex must have exactly one capturing group (the command), got "```(x)(y)```"',
    );
  });
});

describe("mini-swe-agent v2 files", () => {
  it("load unchanged, with a loud warning for every key patchloop does not act on", () => {
    const dir = tempDir();
    const f = join(dir, "mini.yaml");
    writeFileSync(
      f,
      [
        "agent:",
        "  system_template: 'You fix bugs on {{system}} {{machine}}.'",
        "  instance_template: 'Task: {{task}}'",
        "  step_limit: 250",
        "  cost_limit: 3.",
        "  mode: yolo",
        "environment:",
        "  cwd: /testbed",
        "  timeout: 60",
        "  interpreter: [bash, -c]",
        "  env: {PAGER: cat, TQDM_DISABLE: '1'}",
        "  environment_class: docker",
        "  pull_timeout: 600",
        "  container_timeout: 3h",
        "model:",
        "  model_name: anthropic/claude-sonnet-4-5",
        "  model_kwargs: {drop_params: true, temperature: 0.0, parallel_tool_calls: true}",
        "  observation_template: '{{output.returncode}} {{output.output[:5000]}}{% if output.exception_info %}{{output.exception_info}}{% endif %}'",
        "  format_error_template: 'Bad format: {{error}} ({{actions|length}} actions)'",
        "run:",
        "  env_startup_command: 'source /opt/env'",
        "",
      ].join("\n"),
    );
    const { config, warnings } = load(f);
    expect(config.agent.step_limit).toBe(250);
    expect(config.environment.cwd).toBe("/testbed");
    expect(config.environment.container_timeout).toBe(10800);
    expect(config.model.model_kwargs).toEqual({ temperature: 0.0, parallel_tool_calls: true });
    expect(config.run.env_startup_command).toBe("source /opt/env");
    expect(warnings).toEqual([
      `config key agent.mode (from ${f}) is a mini-swe-agent key that patchloop ignores: patchloop runs without interactive confirmation`,
      `config key model.model_kwargs.drop_params (from ${f}) is a mini-swe-agent key that patchloop ignores: a litellm option; patchloop sends model_kwargs unchanged and never sends this one`,
    ]);
  });
});

describe("secrets", () => {
  it("are redacted wherever they hide in a config", () => {
    expect(
      redactSecrets({
        model: {
          api_key_env: "MY_KEY",
          model_kwargs: { api_key: "sk-123", extra_headers: { Authorization: "Bearer x" } },
        },
        environment: { env: { GITHUB_TOKEN: "ghp", PATH: "/bin" } },
      }),
    ).toEqual({
      model: {
        api_key_env: "MY_KEY",
        model_kwargs: { api_key: "***", extra_headers: { Authorization: "***" } },
      },
      environment: { env: { GITHUB_TOKEN: "***", PATH: "/bin" } },
    });
  });
});
