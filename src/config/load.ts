import { resolveAttemptVariants } from "./attempt-variants.js";
import { builtinPath } from "./builtin.js";
import { checkProtocolOptions, checkTemplates, parseTemplates } from "./checks.js";
import { type ConfigLayer, resolveLayer } from "./layers.js";
import { mergeInto, type Plain } from "./merge.js";
import { stripIgnoredMiniKeys } from "./mini-compat.js";
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
}

export interface LoadedConfig {
  config: Config;
  /** Loud warnings (ignored mini-swe-agent keys). */
  warnings: string[];
  /** Where each layer came from, in the order applied. */
  sources: string[];
  /** The layer (a `sources` entry) that last set each dotted key, e.g. `run.select.enabled`. */
  origin: ReadonlyMap<string, string>;
}

/**
 * Resolves the config: base.yaml, then the command's default built-in unless a `-c` names a
 * built-in or a file, then every `-c` in order, then CLI flags. Maps merge deeply, lists replace.
 * Throws ConfigError (exit code 2) on any problem.
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
  all.push(...layers, ...(options.flagLayers ?? []));
  const merged: Plain = {};
  const origin = new Map<string, string>();
  for (const layer of all) mergeInto(merged, layer.data, layer.source, origin);
  const warnings = stripIgnoredMiniKeys(merged, origin);
  const { config, notes } = resolveAttemptVariants(validateConfig(merged, origin));
  warnings.push(...notes);
  checkProtocolOptions(config);
  if (options.templateInstance === null) parseTemplates(config);
  else checkTemplates(config, options.templateInstance);
  return { config, warnings, sources: all.map((l) => l.source), origin };
}

/** A layer setting one dotted key, for CLI flags such as `-m`. */
export function flagLayer(flag: string, path: string, value: unknown): ConfigLayer {
  const parts = path.split(".");
  let data: Plain = { [parts[parts.length - 1]]: value };
  for (let i = parts.length - 2; i >= 0; i--) data = { [parts[i]]: data };
  return { source: flag, data };
}
