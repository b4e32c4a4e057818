import { isDeepStrictEqual } from "node:util";
import { ConfigError } from "../config/errors.js";
import type { ConfigLayer } from "../config/layers.js";
import { isPlain, mergeInto, type Plain } from "../config/merge.js";
import { isSecretKey } from "../config/redact.js";
import { type Config, ConfigSchema } from "../config/schema.js";
import { parseModelName } from "../models/model-name.js";

/**
 * Keys that only a worker's own settings decide (its -c layers and flags, else the defaults of
 * `patchloop worker`): what differs between machines, and every key that names something of the
 * host (an engine and its executable, a registry, mounts, the sandbox's network, the variables
 * given to commands, the model server and the variable holding its key, the queue's timings and
 * secret). A job's values for them are ignored, whatever it says. The other keys are the agent's:
 * the coordinator's config decides them.
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
  "environment.network",
  "environment.forward_env",
  "environment.env",
  "model.base_url",
  "model.api_key_env",
  "model.server",
  "model.request_timeout",
  "model.replica_cooldown",
  "run.queue.lock_seconds",
  "run.queue.stalled_check_seconds",
  "run.queue.grace_seconds",
  "run.queue.secret_env",
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
 * Why a worker does not run a job's config: `by: "job"`, the config is one no worker runs (not a
 * map, a replay file); `by: "worker"`, this worker lacks what it needs (a secret, the same
 * patchloop version), and another worker may have it.
 */
export class JobConfigError extends ConfigError {
  constructor(
    message: string,
    readonly by: "job" | "worker",
  ) {
    super(message);
    this.name = "JobConfigError";
  }
}

/** What a worker lays over a job's config: its resolved config, and what its own layers set (its secrets). */
export interface WorkerSettings {
  own: Config;
  explicit: Plain;
}

/** The config a job runs with on this worker, and the machine keys whose job values were ignored. */
export interface JobConfig {
  config: Config;
  /** MACHINE_KEYS at which the job's value differed from this worker's (in MACHINE_KEYS order). */
  ignored: string[];
}

/**
 * The config a worker runs a job with: the job's config (the coordinator's, secrets masked) with
 * every machine key set to the worker's own value, and every masked secret filled in from the
 * worker's own settings at the same key. Throws JobConfigError naming a secret the worker does not
 * have (secrets never go through Redis), a replay file (a job names no file of the worker's), or a
 * config this worker's patchloop cannot read.
 */
export function jobConfig(jobConfigData: unknown, worker: WorkerSettings): JobConfig {
  if (!isPlain(jobConfigData)) throw new JobConfigError("the job carries no config (not an object)", "job");
  const data = structuredClone(jobConfigData) as Plain;
  const own = worker.own as unknown as Plain;
  const ignored: string[] = [];
  for (const key of MACHINE_KEYS) {
    const theirs = at(data, key);
    const mine = at(own, key);
    if (theirs !== undefined && !isDeepStrictEqual(theirs, mine)) ignored.push(key);
    put(data, key, mine);
  }
  for (const key of secretPaths(worker.explicit, "").map((k) => k.slice(1))) {
    if (at(data, key) === "***") put(data, key, at(worker.explicit, key));
  }
  const missing = masked(data);
  if (missing.length > 0)
    throw new JobConfigError(
      `the job's config holds a secret at ${missing.join(", ")}, which is never sent through the queue; ` +
        `give it to this worker (e.g. -c ${missing[0]}=VALUE, or a config file with it)`,
      "worker",
    );
  const parsed = ConfigSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new JobConfigError(
      `the job's config does not fit this worker's patchloop (${issue.path.join(".")}: ${issue.message}); ` +
        "run the same patchloop version on the coordinator and the workers",
      "worker",
    );
  }
  const name = parsed.data.model.model_name;
  if (parseModelName(name).provider === "replay")
    throw new JobConfigError(
      `the job's model.model_name ${JSON.stringify(name)} names a file to replay, and a worker reads no file a job names; ` +
        "replay a trajectory with patchloop swebench without --queue",
      "job",
    );
  return { config: parsed.data, ignored };
}
