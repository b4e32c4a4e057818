import type { Command } from "commander";
import { stringify } from "yaml";
import { createActionRunner } from "../agent/create-runner.js";
import { createProtocol } from "../agent/protocols/create.js";
import { AgentTemplates } from "../agent/templates.js";
import { SAMPLE_INSTANCE } from "../config/checks.js";
import { ConfigError } from "../config/errors.js";
import { redactSecrets } from "../config/redact.js";
import { createScrubber, scrubStringValues, secretsOf } from "../config/secret-values.js";
import { subsetHelp } from "../dataset/subset-help.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { instanceCwd } from "../instance/open.js";
import { plural } from "../util/plural.js";
import { type AgentFlags, addAgentOptions, guarded, loadAgentConfigAsking } from "./common.js";

/** A rough token estimate (about 4 characters per token for English text and code). */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

interface ShowFlags extends AgentFlags {
  instance?: string;
  subset: string;
  split: string;
  task?: string;
  reposDir?: string;
}

function section(title: string, text: string): string {
  return `# --- ${title}: ${text.length} characters, ~${estimateTokens(text)} tokens ---\n${text}${text.endsWith("\n") ? "" : "\n"}`;
}

async function findInstance(flags: ShowFlags): Promise<Record<string, unknown>> {
  const { loadDataset } = await import("../dataset/load.js");
  const rows = await loadDataset({ subset: flags.subset, split: flags.split });
  const row = rows.find((r) => r.instance_id === flags.instance);
  if (!row)
    throw new ConfigError(
      `--instance ${flags.instance}: no such instance in ${flags.subset} (${flags.split}), which has ${plural(rows.length, "row")}`,
    );
  return row;
}

/**
 * The rest of what the model receives, rendered with sample values at step 1: the tool schemas
 * (tool_calls), an observation, a format error, the cut-off notice, and the format the server is
 * asked to enforce (model.constrain_actions).
 */
function modelFacingSections(
  cfg: Parameters<typeof createActionRunner>[0],
  templates: AgentTemplates,
): string[] {
  const runner = createActionRunner(cfg);
  const protocol = createProtocol(cfg, runner.specs);
  const vars = templates.vars(1, 0, 0);
  const out: string[] = [];
  if (protocol.toolSpecs && protocol.toolSpecs.length > 0)
    out.push(
      section("tool schemas (sent with every request)", `${JSON.stringify(protocol.toolSpecs, null, 2)}\n`),
    );
  const observation = templates.observation.render({
    ...vars,
    output: { output: "(the command's output)", returncode: 0, exception_info: "", timed_out: false },
  });
  out.push(section("observation at step 1 (sample output)", observation));
  const reply = { role: "assistant" as const, content: "(a reply without an action)" };
  const error = protocol.parse(reply);
  const why = error.ok ? "(what was wrong)" : error.error;
  out.push(
    section(
      "format error at step 1 (a reply without an action)",
      templates.formatError(why, reply, "stop", vars),
    ),
  );
  out.push(section("reply cut off by max_tokens", templates.cutOff(reply, vars).error));
  if (cfg.model.constrain_actions && protocol.constraint) {
    const c = protocol.constraint;
    const text =
      c.kind === "tool_call"
        ? 'tool_choice: "required"\n'
        : `regex (vLLM structured_outputs.regex, SGLang regex):\n${c.regex}\n\nGBNF (llama.cpp grammar):\n${c.gbnf}`;
    out.push(section("enforced action format (model.constrain_actions)", text));
  }
  return out;
}

export function register(program: Command): void {
  const config = program.command("config").description("inspect configuration");
  addAgentOptions(
    config
      .command("show")
      .description("print the resolved config and the rendered system and first user message")
      .option("--instance <ID>", "render the messages for this SWE-bench instance")
      .option("--subset <NAME|PATH>", `dataset for --instance: ${subsetHelp()}`, "lite")
      .option("--split <SPLIT>", "dataset split", "test")
      .option("--task <TEXT>", "task text to render when no --instance is given")
      .option(
        "--repos-dir <DIR>",
        "with --instance and agent.localize: the owner__repo clones to localize in",
      ),
  ).action((flags: ShowFlags) =>
    guarded(async () => {
      const { config: cfg, sources, family } = await loadAgentConfigAsking(flags, "default");
      const instance = flags.instance ? await findInstance(flags) : SAMPLE_INSTANCE;
      const task = flags.instance
        ? String(instance.problem_statement)
        : (flags.task ?? "(the task text goes here)");
      // The cwd the model is shown: a batch's for --instance (instance-environment.ts); else, locally,
      // the pattern of a batch's checkout path (a local environment is never at environment.cwd),
      // else the config's.
      const local = cfg.environment.environment_class === "local";
      const cwd = flags.instance
        ? instanceCwd(cfg.environment, flags.instance)
        : local
          ? instanceCwd(cfg.environment, "INSTANCE_ID").replace(/INSTANCE_ID$/, "<instance_id>")
          : cfg.environment.cwd ||
            (cfg.environment.environment_class === "bwrap" ? "/testbed" : "<the repository directory>");
      const where =
        local && !flags.instance
          ? "environment local: a SWE-bench batch's checkout; patchloop run shows its worktree of --repo, or --repo itself with --in-place"
          : `environment ${cfg.environment.environment_class}`;
      const localization =
        flags.instance && cfg.agent.localize.enabled
          ? await (await import("./localize-show.js")).localizationForShow(
              cfg,
              instance as SwebenchInstance,
              flags.reposDir,
            )
          : undefined;
      const templates = new AgentTemplates(cfg, task, instance, cwd, localization);
      const vars = templates.vars(0, 0, 0);
      // What run.json would hold: the config's and the host's secrets and URL credentials masked,
      // in the layer sources (the `-c`/flag text as typed) as in the config.
      const scrub = createScrubber(secretsOf({ config: cfg }));
      const out = [
        `# patchloop resolved config (layers: ${scrub(sources.join(" -> "))})`,
        ...(family ? [`# ${scrub(family.line)}`] : []),
        stringify(scrubStringValues(redactSecrets(cfg), scrub), { lineWidth: 0 }).trimEnd(),
        "",
        `# cwd shown to the model: ${cwd} (${where})`,
        "",
        section("system message", templates.system(vars)),
        section(
          flags.instance ? `first user message (${flags.instance})` : "first user message",
          templates.instance(vars),
        ),
        ...modelFacingSections(cfg, templates),
      ];
      process.stdout.write(`${out.join("\n")}`);
      return 0;
    }),
  );
}
