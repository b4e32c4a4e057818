import { checkProtocolOptions, parseTemplates } from "./checks.js";
import { ConfigError } from "./errors.js";
import { resolveLayer } from "./layers.js";
import { isPlain, mergeInto, type Plain } from "./merge.js";
import type { Config } from "./schema.js";
import { validateConfig } from "./validate.js";

/** Keys a variant may not set: they decide how many attempts there are, not how one runs. */
const RUN_WIDE = ["attempts", "attempt_variants", "attempt_policy", "queue"] as const;

/** The variant that attempt `k` (1-based) takes, or undefined when the run has none. */
export function variantIndex(config: Config, attempt: number): number | undefined {
  const n = config.run.attempt_variants.length;
  return n === 0 ? undefined : (attempt - 1) % n;
}

/**
 * Reads the string entries of `run.attempt_variants` (a built-in config name or a YAML file, as
 * `-c` reads them) into maps, so that the resolved config carries each variant's data (run.json,
 * `config show`, the jobs of a queue) and no worker needs the file. Then checks every variant:
 * `attemptConfig` of each must be a valid config. Throws ConfigError naming the variant.
 */
export function resolveAttemptVariants(config: Config): Config {
  const variants = config.run.attempt_variants.map((v, i) => {
    if (isPlain(v)) return v;
    if (v.includes("="))
      throw new ConfigError(`${where(i)}: "${v}" is a key=value override; give a map instead`);
    try {
      return resolveLayer(v).data;
    } catch (err) {
      throw new ConfigError(`${where(i)}: ${(err as Error).message}`);
    }
  });
  const resolved: Config = { ...config, run: { ...config.run, attempt_variants: variants } };
  for (let i = 0; i < variants.length; i++) applyVariant(resolved, i);
  return resolved;
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
