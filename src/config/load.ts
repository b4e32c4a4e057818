import { resolveAttemptVariants } from "./attempt-variants.js";
import { chooseFamily, type FamilyChoice } from "./auto-family.js";
import { builtinPath } from "./builtin.js";
import { checkProtocolOptions, checkTemplates, parseTemplates } from "./checks.js";
import { type ConfigLayer, resolveLayer } from "./layers.js";
import { mergeInto, type Plain } from "./merge.js";
import { stripIgnoredMiniKeys } from "./mini-compat.js";
import { renameOldKeys } from "./renamed-keys.js";
import type { Config } from "./schema.js";
import { validateConfig } from "./validate.js";
import { readYamlConfigFile } from "./yaml-file.js";

export interface LoadConfigOptions {
  /** The `-c` arguments, in order. */
  configArgs: string[];
  /** The built-in config applied when no `-c` names a built-in config or a file. */
  defaultConfig: string;
  /** Layers from dedicated CLI flags (-m, --base-url, ...), applied last. */
  flagLayers?: ConfigLayer[];
  /**
   * The dataset row the templates are checked with (default: a sample SWE-bench row). `null` skips
   * the check, for a caller that checks them against its real rows (see `checkTemplatesForRows`).
   */
  templateInstance?: Record<string, unknown> | null;
  /**
   * What the server's `GET /models` said the served model is (vLLM's `root`, ...), for taking the
   * family from it when the served name names none (auto-family.ts).
   */
  serverNames?: readonly string[];
}

export interface LoadedConfig {
  config: Config;
  /** Loud warnings (ignored mini-swe-agent keys, keys under an old name). */
  warnings: string[];
  /** Where each layer came from, in the order applied. */
  sources: string[];
  /** The layer (a `sources` entry) that last set each dotted key, e.g. `run.select.enabled`. */
  origin: ReadonlyMap<string, string>;
  /** The family taken from the model's name (or the server's listing), when one was; its `line` says so. */
  family: FamilyChoice | null;
}

/**
 * Resolves the config: base.yaml, then the command's default built-in unless a `-c` names a
 * built-in or a file, then the family preset the model's name names when no layer sets
 * `model.family` (auto-family.ts), then every `-c` in order, then CLI flags. Maps merge deeply,
 * lists replace. Throws ConfigError (exit code 2) on any problem.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const layers = options.configArgs.map(resolveLayer);
  const namesWhole = layers.some((l) => !l.source.startsWith("-c "));
  const all: ConfigLayer[] = [
    { source: "configs/base.yaml", data: readYamlConfigFile(builtinPath("base"), "configs/base.yaml") },
  ];
  if (!namesWhole) {
    const name = options.defaultConfig;
    all.push({
      source: `built-in config "${name}"`,
      data: readYamlConfigFile(builtinPath(name), `configs/${name}.yaml`),
    });
  }
  const given = [...layers, ...(options.flagLayers ?? [])];
  const family = chooseFamily(mergeLayers([...all, ...given]).merged, options.serverNames);
  if (family?.layer) all.push(family.layer);
  all.push(...given);
  const warnings = all.flatMap((l) => renameOldKeys(l.data, l.source));
  const { merged, origin } = mergeLayers(all);
  warnings.push(...stripIgnoredMiniKeys(merged, origin));
  const { config, notes } = resolveAttemptVariants(validateConfig(merged, origin));
  warnings.push(...notes);
  checkProtocolOptions(config);
  if (options.templateInstance === null) parseTemplates(config);
  else checkTemplates(config, options.templateInstance);
  return { config, warnings, sources: all.map((l) => l.source), origin, family };
}

function mergeLayers(layers: readonly ConfigLayer[]): { merged: Plain; origin: Map<string, string> } {
  const merged: Plain = {};
  const origin = new Map<string, string>();
  for (const layer of layers) mergeInto(merged, layer.data, layer.source, origin);
  return { merged, origin };
}

/** A layer setting one dotted key, for CLI flags such as `-m`. */
export function flagLayer(flag: string, path: string, value: unknown): ConfigLayer {
  const parts = path.split(".");
  let data: Plain = { [parts[parts.length - 1]]: value };
  for (let i = parts.length - 2; i >= 0; i--) data = { [parts[i]]: data };
  return { source: flag, data };
}
