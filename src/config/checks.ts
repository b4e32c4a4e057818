import { ConfigError } from "./errors.js";
import { compileActionRegex } from "./mini-compat.js";
import type { Config } from "./schema.js";
import { StrictTemplate } from "./template.js";
import { baseContext, stepVars } from "./template-vars.js";

/** Options that only one protocol understands; setting them for the other is an error. */
export function checkProtocolOptions(config: Config): void {
  const problems: string[] = [];
  const { protocol, tools } = config.agent;
  if (!tools.includes("bash"))
    problems.push(`agent.tools must include bash (it runs the submit command), got [${tools.join(", ")}]`);
  if (protocol === "tool_calls") {
    if (config.model.action_regex !== null)
      problems.push(
        "model.action_regex only applies to agent.protocol=backticks (mini-swe-agent: model.model_class: litellm_textbased); remove it or switch protocol",
      );
    if (tools.includes("edit_tool"))
      problems.push(
        "agent.tools has edit_tool, the heredoc front of the backticks protocol; with tool_calls use str_replace_editor",
      );
  } else {
    for (const t of ["str_replace_editor", "view_image"] as const)
      if (tools.includes(t))
        problems.push(
          `agent.tools has ${t}, a JSON tool of the tool_calls protocol; with backticks use edit_tool`,
        );
    if (config.model.action_regex !== null) {
      let re: RegExp | undefined;
      try {
        re = compileActionRegex(config.model.action_regex);
      } catch (err) {
        problems.push(`model.action_regex is not a valid regular expression: ${(err as Error).message}`);
      }
      if (re && new RegExp(`${re.source}|`).exec("")!.length - 1 !== 1)
        problems.push(
          `model.action_regex must have exactly one capturing group (the command), got ${JSON.stringify(config.model.action_regex)}`,
        );
    }
  }
  problems.push(...constraintProblems(config));
  if (problems.length > 0)
    throw new ConfigError(`invalid config:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
}

/** Request fields that `model.constrain_actions` sets itself. */
const CONSTRAINT_FIELDS = ["structured_outputs", "regex", "grammar", "tool_choice", "guided_regex"];

/** What makes `model.constrain_actions` impossible, known before any request. */
function constraintProblems(config: Config): string[] {
  const { model, agent } = config;
  if (!model.constrain_actions) return [];
  const problems: string[] = [];
  const provider = model.model_name.trim().split("/")[0];
  if (provider === "anthropic")
    problems.push(
      "model.constrain_actions is for OpenAI-compatible servers (vLLM, SGLang, llama.cpp); turn it off for anthropic/ models",
    );
  if (agent.protocol === "backticks" && model.action_regex !== null)
    problems.push(
      "model.constrain_actions enforces the ```agent.action_tag block; it cannot enforce a model.action_regex format. Remove one of them",
    );
  if (agent.protocol === "backticks" && (model.server === "ollama" || model.server === "openai"))
    problems.push(
      `model.constrain_actions with agent.protocol=backticks needs vLLM, SGLang or llama.cpp; model.server is ${model.server}, which cannot enforce a text format`,
    );
  if (agent.protocol === "tool_calls" && model.server === "ollama")
    problems.push("model.constrain_actions: Ollama ignores tool_choice, so it cannot be made to call a tool");
  const set = CONSTRAINT_FIELDS.filter((f) => f in model.model_kwargs);
  if (set.length > 0)
    problems.push(
      `model.constrain_actions sets the request's constraint itself, but model.model_kwargs already has ${set.join(", ")}; remove one of them`,
    );
  return problems;
}

/** A SWE-bench-shaped row for checking templates before a real instance is known. */
export const SAMPLE_INSTANCE: Record<string, unknown> = {
  repo: "owner/name",
  instance_id: "owner__name-1",
  base_commit: "0".repeat(40),
  problem_statement: "(task)",
  hints_text: "",
  version: "1.0",
  created_at: "",
  FAIL_TO_PASS: "[]",
  PASS_TO_PASS: "[]",
  patch: "",
  test_patch: "",
  environment_setup_commit: "",
};

/**
 * Checks the templates against every row a batch will run (the instance template gets the row's
 * own fields, so one row may lack what another has). Throws ConfigError naming the first row that
 * fails and how many fail.
 */
export function checkTemplatesForRows(config: Config, rows: Array<{ instance_id: string }>): void {
  let first: { id: string; message: string } | null = null;
  let failing = 0;
  const check = templateChecker(config);
  for (const row of rows) {
    try {
      check(row as unknown as Record<string, unknown>);
    } catch (err) {
      failing++;
      first ??= { id: row.instance_id, message: (err as Error).message };
    }
  }
  if (first)
    throw new ConfigError(
      `the templates do not render for instance ${first.id}` +
        (failing > 1 ? ` (nor for ${failing - 1} more of the ${rows.length} selected)` : "") +
        `: ${first.message}`,
    );
}

/**
 * Parses every template once; the returned function renders them all (the per-step ones with
 * sample values) for one dataset row and throws ConfigError-worthy errors on the first that fails.
 */
function templateChecker(config: Config): (instance: Record<string, unknown>) => void {
  const t = (text: string, name: string) => new StrictTemplate(text, name);
  const system = t(config.agent.system_template, "agent.system_template");
  const instanceT = t(config.agent.instance_template, "agent.instance_template");
  const length = t(config.agent.length_template, "agent.length_template");
  const observation = t(config.model.observation_template, "model.observation_template");
  const formatError = t(config.model.format_error_template, "model.format_error_template");
  return (instance) => {
    const base = baseContext(
      config,
      "(task)",
      instance,
      config.environment.cwd || "/repo",
      stepVars(config, 1, 0, 0),
    );
    system.render(base);
    instanceT.render(base);
    length.render({ ...base, finish_reason: "length" });
    observation.render({
      ...base,
      output: { output: "", returncode: 0, exception_info: "", timed_out: false },
    });
    formatError.render({
      ...base,
      error: "(error)",
      actions: [],
      finish_reason: "stop",
      has_tool_calls: false,
    });
  };
}

/** Parses every template (syntax errors surface at once); rendering waits for the real rows. */
export function parseTemplates(config: Config): void {
  templateChecker(config);
}

/** Parses every template and renders them with sample values: errors surface before any work starts. */
export function checkTemplates(config: Config, instance: Record<string, unknown> = SAMPLE_INSTANCE): void {
  templateChecker(config)(instance);
}
