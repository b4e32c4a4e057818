import { checkProtocolOptions, parseTemplates } from "./checks.js";
import { ConfigError } from "./errors.js";
import { resolveLayer } from "./layers.js";
import { ENVIRONMENT_MACHINE_KEYS, keysChangedBy, keysSetIn, removeAt, valueAt } from "./machine-keys.js";
import { isPlain, mergeInto, type Plain } from "./merge.js";
import { renameOldKeys } from "./renamed-keys.js";
import type { Config } from "./schema.js";
import { validateConfig } from "./validate.js";

/** Keys a variant may not set: they decide how many attempts there are, not how one runs. */
const RUN_WIDE = ["attempts", "attempt_variants", "attempt_policy", "queue"] as const;

/** The variant that attempt `k` (1-based) takes, or undefined when the run has none. */
export function variantIndex(config: Config, attempt: number): number | undefined {
  const n = config.run.attempt_variants.length;
  return n === 0 ? undefined : (attempt - 1) % n;
}

/** A resolved config, and what resolving its attempt variants left out (for the person). */
export interface ResolvedVariants {
  config: Config;
  notes: string[];
}

/**
 * Reads the string entries of `run.attempt_variants` (a built-in config name or a YAML file, as
 * `-c` reads them) into maps, so that the resolved config carries each variant's data (run.json,
 * `config show`, the jobs of a queue) and no worker needs the file. Every attempt runs on the run's
 * own machine settings (the `environment.*` keys of config/machine-keys.ts: engine, executable,
 * image template, mounts, network, variables, limits), which the command line decides:
 * - a variant read from a built-in config or a file keeps its agent and model settings, and its
 *   machine settings that differ from the run's are left out, each said in a note;
 * - a variant written as a map that sets one differently is a ConfigError naming the variant and
 *   the key (a person wrote it, so it is a mistake, not a default);
 * - one that sets the run's own value is left out silently.
 * Then checks every variant: `attemptConfig` of each must be a valid config. Throws ConfigError
 * naming the variant.
 */
export function resolveAttemptVariants(config: Config): ResolvedVariants {
  const notes: string[] = [];
  const variants = config.run.attempt_variants.map((v, i) => {
    const data = readVariant(v, i);
    notes.push(...renameOldKeys(data, isPlain(v) ? where(i) : `${where(i)} (${v})`));
    const changed = keysChangedBy(data, config, ENVIRONMENT_MACHINE_KEYS);
    if (changed.length > 0 && isPlain(v)) {
      const key = changed[0];
      throw new ConfigError(
        `${where(i)} sets ${key} to ${JSON.stringify(valueAt(data, key))}, but the run's is ` +
          `${JSON.stringify(valueAt(config, key))}: every attempt runs on the run's machine settings ` +
          `(${ENVIRONMENT_MACHINE_KEYS.join(", ")}); remove ${key} from the variant, or set it for the whole run ` +
          "(-c, --environment)",
      );
    }
    if (changed.length > 0)
      notes.push(
        `${where(i)} (${v}): ${changed.map((k) => `${k} ${JSON.stringify(valueAt(data, k))}`).join(", ")} ` +
          `left out: every attempt runs on the run's machine settings (${changed
            .map((k) => `${k} ${JSON.stringify(valueAt(config, k))}`)
            .join(", ")})`,
      );
    for (const key of keysSetIn(data, ENVIRONMENT_MACHINE_KEYS)) removeAt(data, key);
    return data;
  });
  const resolved: Config = { ...config, run: { ...config.run, attempt_variants: variants } };
  for (let i = 0; i < variants.length; i++) applyVariant(resolved, i);
  return { config: resolved, notes };
}

/** Variant `i` as a map of its own (a copy: the caller may change it). */
function readVariant(v: string | Plain, i: number): Plain {
  if (isPlain(v)) return structuredClone(v);
  if (v.includes("="))
    throw new ConfigError(`${where(i)}: "${v}" is a key=value override; give a map instead`);
  try {
    return resolveLayer(v).data;
  } catch (err) {
    throw new ConfigError(`${where(i)}: ${(err as Error).message}`);
  }
}

/**
 * The config attempt `k` (1-based) of an instance runs with: the run's config with its variant
 * layered on top (maps merge, lists replace, as `-c` layers do), checked strictly. The run-wide
 * keys (`run.attempts`, `run.attempt_variants`, `run.attempt_policy`, `run.queue`) stay the run's.
 */
export function attemptConfig(config: Config, attempt: number): Config {
  const i = variantIndex(config, attempt);
  return i === undefined ? config : applyVariant(config, i);
}

function where(i: number): string {
  return `run.attempt_variants[${i}]`;
}

function applyVariant(config: Config, i: number): Config {
  const variant = config.run.attempt_variants[i];
  if (!isPlain(variant)) throw new ConfigError(`${where(i)}: not read yet (resolveAttemptVariants reads it)`);
  const run = variant.run;
  if (isPlain(run)) {
    const wide = RUN_WIDE.filter((k) => k in run);
    if (wide.length > 0)
      throw new ConfigError(
        `${where(i)} sets ${wide.map((k) => `run.${k}`).join(", ")}: those hold for the whole run; set them outside the variants`,
      );
  }
  const merged = structuredClone(config) as unknown as Plain;
  const origin = new Map<string, string>();
  mergeInto(merged, variant, where(i), origin);
  let out: Config;
  try {
    out = validateConfig(merged, origin);
    checkProtocolOptions(out);
    parseTemplates(out);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${where(i)}: ${err.message}`);
    throw err;
  }
  return out;
}
