import { isDeepStrictEqual } from "node:util";
import { isPlain, type Plain } from "./merge.js";

/**
 * Keys that describe the machine a run uses rather than the agent: an engine and its executable,
 * a registry, mounts, the sandbox's network, the variables given to commands, the model server and
 * the variable holding its key, the queue's timings and secret. Two rules rest on this list:
 * - attempts of one run all run on the run's machine settings (`run.attempt_variants` cannot
 *   change the `environment.*` ones: config/attempt-variants.ts);
 * - a worker of a queue takes every one of them from its own settings, never from a job, and
 *   refuses a job whose attempt variants name one (src/distributed/machine-config.ts).
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
] as const;

/** The machine keys of the environment section: no attempt variant changes them, queue or not. */
export const ENVIRONMENT_MACHINE_KEYS = MACHINE_KEYS.filter((k) => k.startsWith("environment."));

/** The value at a dotted key, or undefined. */
export function valueAt(data: unknown, key: string): unknown {
  let v = data;
  for (const part of key.split(".")) v = isPlain(v) ? v[part] : undefined;
  return v;
}

/** Removes a dotted key from `data` (and the maps it leaves empty). */
export function removeAt(data: Plain, key: string): void {
  const parts = key.split(".");
  const chain: Plain[] = [data];
  for (const p of parts.slice(0, -1)) {
    const next = chain[chain.length - 1][p];
    if (!isPlain(next)) return;
    chain.push(next);
  }
  delete chain[chain.length - 1][parts[parts.length - 1]];
  for (let i = chain.length - 1; i > 0; i--) {
    if (Object.keys(chain[i]).length > 0) break;
    delete chain[i - 1][parts[i - 1]];
  }
}

/** The keys of `keys` that `data` sets (a map in the config's shape, e.g. an attempt variant). */
export function keysSetIn(data: Plain, keys: readonly string[] = MACHINE_KEYS): string[] {
  return keys.filter((k) => valueAt(data, k) !== undefined);
}

/** The keys of `keys` that `data` sets to a value other than `config`'s. */
export function keysChangedBy(
  data: Plain,
  config: unknown,
  keys: readonly string[] = MACHINE_KEYS,
): string[] {
  return keysSetIn(data, keys).filter((k) => !isDeepStrictEqual(valueAt(data, k), valueAt(config, k)));
}

/** A model name that names a file of the machine it runs on (`replay:FILE`, `gguf:FILE`), else null. */
export function fileModelName(name: unknown): string | null {
  if (typeof name !== "string") return null;
  const n = name.trim();
  return /^(replay|gguf):/i.test(n) ? n : null;
}
