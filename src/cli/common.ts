import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import type { ConfigLayer } from "../config/layers.js";
import { flagLayer, type LoadedConfig, loadConfig } from "../config/load.js";
import { parseModelName } from "../config/model-name.js";
import { subsetHelp } from "../dataset/subset-help.js";
import { servedModelNames } from "../models/server-detect.js";

/** Where a command writes: its report to `out`, notes, progress and errors to `err`. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** commander collector for repeatable options such as `-c`. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * The options that select SWE-bench rows (swebench, localize): --subset, --split, --slice,
 * --filter, --shuffle, --instance-ids. src/dataset/select.ts reads them.
 */
export function addSelectionOptions(cmd: Command): Command {
  return cmd
    .option("--subset <NAME|PATH>", subsetHelp(), "lite")
    .option("--split <SPLIT>", "dataset split: test or dev", "test")
    .option("--slice <A:B>", "Python-style slice of the instances, e.g. 0:10")
    .option("--filter <REGEX>", "only instance ids matching this regex (at the start)")
    .option("--shuffle", "shuffle the instances (seeded, the same order every time)")
    .option("--instance-ids <ID...>", "only these instances (space- or comma-separated)", collect, []);
}

/** What a command that needs a model says when it got none: every form `-m` takes. */
export const NO_MODEL =
  "no model: pass -m openai/<name>, -m anthropic/<name>, -m gguf:<file.gguf> or -m replay:<file>, or set model.model_name";

/**
 * The options every agent-running command shares; `environments` says what `--environment` takes
 * there (localize reads only from containers).
 */
export function addAgentOptions(cmd: Command, environments = "local, bwrap, docker or podman"): Command {
  return cmd
    .option(
      "-c, --config <CONFIG>",
      "built-in config name, YAML file, or dotted.key=value (repeatable, later wins)",
      collect,
      [],
    )
    .option(
      "-m, --model <MODEL>",
      "openai/<name>, anthropic/<name>, gguf:<file.gguf> (in-process) or replay:<trajectory file>",
    )
    .option("--base-url <URL>", "base URL of an OpenAI-compatible server (vLLM, llama.cpp, SGLang, Ollama)")
    .option(
      "--model-class <CLASS>",
      "mini-swe-agent model class: litellm_textbased means text actions (backticks)",
    )
    .option("--environment <KIND>", environments)
    .option("--image <IMAGE>", "container image (docker/podman)");
}

export interface AgentFlags {
  config: string[];
  model?: string;
  baseUrl?: string;
  modelClass?: string;
  environment?: string;
  image?: string;
}

/** The layers of the dedicated flags (-m, --base-url, ...), then the command's own. */
function agentFlagLayers(flags: AgentFlags, commandLayers: ConfigLayer[]): ConfigLayer[] {
  const layers: ConfigLayer[] = [];
  if (flags.model) layers.push(flagLayer(`-m ${flags.model}`, "model.model_name", flags.model));
  if (flags.baseUrl) layers.push(flagLayer(`--base-url ${flags.baseUrl}`, "model.base_url", flags.baseUrl));
  if (flags.modelClass)
    layers.push(flagLayer(`--model-class ${flags.modelClass}`, "model.model_class", flags.modelClass));
  if (flags.environment)
    layers.push(
      flagLayer(`--environment ${flags.environment}`, "environment.environment_class", flags.environment),
    );
  if (flags.image) layers.push(flagLayer(`--image ${flags.image}`, "environment.image", flags.image));
  layers.push(...commandLayers);
  return layers;
}

/** Resolves the config of an agent-running command: -c layers, then the dedicated flags. */
export function loadAgentConfig(
  flags: AgentFlags,
  defaultConfig: string,
  templateInstance?: Record<string, unknown> | null,
  /** Layers of the command's own flags (e.g. `swebench --attempts`), applied after the common ones. */
  commandLayers: ConfigLayer[] = [],
  /** What the server's /models said the served model is (`loadAgentConfigAsking`). */
  serverNames: readonly string[] = [],
): LoadedConfig {
  const layers = agentFlagLayers(flags, commandLayers);
  const loaded = loadConfig({
    configArgs: flags.config,
    defaultConfig,
    flagLayers: layers,
    templateInstance,
    serverNames,
  });
  for (const w of loaded.warnings) process.stderr.write(`WARNING: ${w}\n`);
  if (loaded.family) process.stderr.write(`${loaded.family.line}\n`);
  return loaded;
}

/**
 * `loadAgentConfig`, asking the server's `GET /models` what the served model is when its name
 * names no family and no layer sets one (a local alias such as `--served-model-name coder`): a
 * family named there is applied as one named by the model's name (docs/models.md).
 */
export async function loadAgentConfigAsking(
  flags: AgentFlags,
  defaultConfig: string,
  templateInstance?: Record<string, unknown> | null,
  commandLayers: ConfigLayer[] = [],
): Promise<LoadedConfig> {
  let names: string[] = [];
  try {
    const first = loadAgentConfigQuietly(flags, defaultConfig, commandLayers);
    const model = first.config.model;
    const base = Array.isArray(model.base_url) ? model.base_url[0] : model.base_url;
    const parsed = parseModelName(model.model_name);
    if (first.family === null && model.family === null && parsed.provider === "openai" && base)
      names = await servedModelNames(String(base), parsed.model);
  } catch {
    // the load below reports the problem
  }
  return loadAgentConfig(flags, defaultConfig, templateInstance, commandLayers, names);
}

function loadAgentConfigQuietly(flags: AgentFlags, defaultConfig: string, commandLayers: ConfigLayer[]) {
  return loadConfig({
    configArgs: flags.config,
    defaultConfig,
    flagLayers: agentFlagLayers(flags, commandLayers),
    templateInstance: null,
  });
}

export { guarded } from "./guarded.js";

/**
 * `--python` of eval and `swebench --evaluate`: a relative path (`venv/bin/python`) is made
 * absolute here, since the tests run in the instance's work tree where it would mean something
 * else, and must exist; an absolute path or a bare name (`python3`) is looked up in the
 * environment when the tests run. Throws ConfigError before any instance runs.
 */
export function pythonFlag(value: string | undefined): string | undefined {
  if (value === undefined || !value.includes("/") || isAbsolute(value)) return value;
  const abs = resolve(value);
  if (!existsSync(abs))
    throw new ConfigError(
      `--python ${value}: no such file (${abs}); give the interpreter's path (e.g. /usr/bin/python3 or venv/bin/python) or a name on PATH`,
    );
  return abs;
}
