import { ConfigError } from "../config/errors.js";
import type { ConfigLayer } from "../config/layers.js";
import { isPlain, mergeInto, type Plain } from "../config/merge.js";
import { isSecretKey } from "../config/redact.js";
import { type Config, ConfigSchema } from "../config/schema.js";

/**
 * Keys of a worker's own config (its -c layers and flags) that replace the job's: what differs
 * from machine to machine (the container engine and its registry, the model server next to it,
 * limits of the host, queue timings), never what the agent does. A whole subtree when it names one.
 */
export const MACHINE_KEYS = [
  "environment.environment_class",
  "environment.executable",
  "environment.image_template",
  "environment.platform",
  "environment.pull_timeout",
  "environment.memory",
  "environment.cpus",
  "environment.pids_limit",
  "environment.run_args",
  "environment.binds",
  "model.base_url",
  "model.api_key_env",
  "model.request_timeout",
  "model.replica_cooldown",
  "run.queue",
];

/** The value at a dotted key, or undefined. */
function at(data: unknown, key: string): unknown {
  let v = data;
  for (const part of key.split(".")) v = isPlain(v) ? v[part] : undefined;
  return v;
}

/** What a worker's layers set, merged (no base config under them). */
export function explicitSettings(layers: ConfigLayer[]): Plain {
  const merged: Plain = {};
  const origin = new Map<string, string>();
  for (const l of layers) mergeInto(merged, l.data, l.source, origin);
  return merged;
}

/**
 * The dotted keys a worker's layers set outside MACHINE_KEYS and not secrets: they are ignored
 * (the coordinator's config decides them).
 */
export function ignoredKeys(explicit: Plain, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(explicit)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (MACHINE_KEYS.some((m) => key === m || key.startsWith(`${m}.`)) || isSecretKey(k)) continue;
    if (isPlain(v)) out.push(...ignoredKeys(v, key));
    else out.push(key);
  }
  return out;
}

/** Dotted keys of the strings under secret-looking keys (`all`: every string below `key`). */
function secretPaths(v: unknown, key: string, all = false): string[] {
  if (typeof v === "string") return all ? [key] : [];
  if (!isPlain(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => secretPaths(x, `${key}.${k}`, all || isSecretKey(k)));
}

/** Sets `value` at a dotted key of `data`, making maps on the way. */
function put(data: Plain, key: string, value: unknown): void {
  const parts = key.split(".");
  let m = data;
  for (const p of parts.slice(0, -1)) {
    if (!isPlain(m[p])) m[p] = {};
    m = m[p] as Plain;
  }
  m[parts[parts.length - 1]] = structuredClone(value);
}

/** Strings of `data` that a redaction masked (`***` under a secret key, `://***@` in a URL), by dotted key. */
function masked(v: unknown, key = "", secret = false): string[] {
  if (typeof v === "string") return (secret && v === "***") || v.includes("://***@") ? [key] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => masked(x, `${key}[${i}]`, secret));
  if (!isPlain(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => masked(x, key ? `${key}.${k}` : k, secret || isSecretKey(k)));
}

/**
 * The config a worker runs a job with: the job's config (the coordinator's, secrets masked) with
 * the worker's machine keys laid over it, and every masked secret filled in from the worker's own
 * settings at the same key. Throws ConfigError naming a secret the worker does not have (secrets
 * never go through Redis) or a config this worker's patchloop cannot read.
 */
export function jobConfig(jobConfigData: unknown, explicit: Plain): Config {
  if (!isPlain(jobConfigData)) throw new ConfigError("the job carries no config (not an object)");
  const data = structuredClone(jobConfigData) as Plain;
  for (const key of MACHINE_KEYS) {
    const mine = at(explicit, key);
    if (mine === undefined) continue;
    const theirs = at(data, key);
    if (isPlain(mine) && isPlain(theirs)) {
      const merged = structuredClone(theirs);
      mergeInto(merged, mine, "worker", new Map());
      put(data, key, merged);
    } else put(data, key, mine);
  }
  for (const key of secretPaths(explicit, "").map((k) => k.slice(1))) {
    if (at(data, key) === "***") put(data, key, at(explicit, key));
  }
  const missing = masked(data);
  if (missing.length > 0)
    throw new ConfigError(
      `the job's config holds a secret at ${missing.join(", ")}, which is never sent through the queue; ` +
        `give it to this worker (e.g. -c ${missing[0]}=VALUE, or a config file with it)`,
    );
  const parsed = ConfigSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `the job's config does not fit this worker's patchloop (${issue.path.join(".")}: ${issue.message}); ` +
        "run the same patchloop version on the coordinator and the workers",
    );
  }
  return parsed.data;
}
