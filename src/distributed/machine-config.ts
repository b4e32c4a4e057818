import { isDeepStrictEqual } from "node:util";
import { ConfigError } from "../config/errors.js";
import type { ConfigLayer } from "../config/layers.js";
import { fileModelName, keysSetIn, MACHINE_KEYS, valueAt } from "../config/machine-keys.js";
import { isPlain, mergeInto, type Plain } from "../config/merge.js";
import { isSecretKey } from "../config/redact.js";
import { type Config, ConfigSchema } from "../config/schema.js";

/**
 * The keys only a worker's own settings decide (its -c layers and flags, else the defaults of
 * `patchloop worker`): config/machine-keys.ts has the list. A job's values for them are ignored,
 * whatever it says, and a job whose attempt variants name one is refused.
 */
export { MACHINE_KEYS };

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

/** Refuses a model name that opens a file of the worker (`replay:`, `gguf:`). */
function checkNamesNoFile(name: unknown, where: string): void {
  const file = fileModelName(name);
  if (file === null) return;
  const kind = file.toLowerCase().startsWith("gguf:") ? "a GGUF model file" : "a trajectory file to replay";
  throw new JobConfigError(
    `the job's ${where} names ${kind} (${JSON.stringify(file.slice(0, 80))}), and a worker opens no file a job names; ` +
      "run a GGUF model or a replay with patchloop swebench without --queue, or serve the model over HTTP for the workers",
    "job",
  );
}

/**
 * Refuses attempt variant `i` of a job when it would steer the worker: a variant is laid over the
 * config after the worker's machine keys, so one naming a machine key (a model server, a key
 * variable, a mount) would win over the worker's own. A coordinator never sends such a variant
 * (`checkQueueConfig`), so a job holding one was crafted.
 */
function checkVariant(variant: unknown, i: number): void {
  const where = `run.attempt_variants[${i}]`;
  if (!isPlain(variant))
    throw new JobConfigError(
      `the job's ${where} is not a map (a coordinator reads built-in configs and files into maps before it sends a job)`,
      "job",
    );
  const keys = keysSetIn(variant);
  if (keys.length > 0)
    throw new JobConfigError(
      `the job's ${where} sets ${keys.join(", ")}: only a worker's own settings decide ${keys.length === 1 ? "it" : "them"}, ` +
        "and a variant would override them; a coordinator never sends such a job",
      "job",
    );
  checkNamesNoFile(valueAt(variant, "model.model_name"), `${where}.model.model_name`);
}

/**
 * Why a config cannot run through a queue, as a ConfigError for the coordinator's command line
 * (before anything is sent): an attempt variant that sets a machine key (the workers decide those)
 * or a model name naming a file of this machine (a worker opens none).
 */
export function checkQueueConfig(config: Config): void {
  try {
    checkNamesNoFile(config.model.model_name, "model.model_name");
    config.run.attempt_variants.forEach(checkVariant);
  } catch (err) {
    if (!(err instanceof JobConfigError)) throw err;
    throw new ConfigError(
      `with --queue, ${err.message.replace(/^the job's /, "").replace(/; a coordinator never sends such a job$/, "")}` +
        ' (docs/distributed.md, "Who can do what through Redis")',
    );
  }
}

/**
 * The config a worker runs a job with: the job's config (the coordinator's, secrets masked) with
 * every machine key set to the worker's own value, and every masked secret filled in from the
 * worker's own settings at the same key. Throws JobConfigError naming a secret the worker does not
 * have (secrets never go through Redis), a replay or GGUF file (a job names no file of the worker's),
 * an attempt variant that names a machine key, or a config this worker's patchloop cannot read.
 */
export function jobConfig(jobConfigData: unknown, worker: WorkerSettings): JobConfig {
  if (!isPlain(jobConfigData)) throw new JobConfigError("the job carries no config (not an object)", "job");
  const data = structuredClone(jobConfigData) as Plain;
  const own = worker.own as unknown as Plain;
  const ignored: string[] = [];
  for (const key of MACHINE_KEYS) {
    const theirs = valueAt(data, key);
    const mine = valueAt(own, key);
    if (theirs !== undefined && !isDeepStrictEqual(theirs, mine)) ignored.push(key);
    put(data, key, mine);
  }
  for (const key of secretPaths(worker.explicit, "").map((k) => k.slice(1))) {
    if (valueAt(data, key) === "***") put(data, key, valueAt(worker.explicit, key));
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
  checkNamesNoFile(parsed.data.model.model_name, "model.model_name");
  parsed.data.run.attempt_variants.forEach(checkVariant);
  return { config: parsed.data, ignored };
}
