import { ConfigError } from "./errors.js";
import { isPlain, type Plain } from "./merge.js";

/**
 * Keys patchloop renamed, old dotted path to new. "Attempt" has one meaning: one of an instance's
 * independent runs in a batch (`run.attempts`, `<id>/attempt-<k>`). A model call is tried again
 * (`model.retry.max_tries`); the queue delivers an instance's job to a worker (`run.queue.deliveries`).
 * A layer that sets an old key (a config file of an older patchloop, a run.json's recorded config)
 * is read with the new key in its place and a warning naming both.
 */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  "model.retry.max_attempts": "model.retry.max_tries",
  "run.queue.attempts": "run.queue.deliveries",
  "run.select.reproduce.model.retry.max_attempts": "run.select.reproduce.model.retry.max_tries",
  "run.select.judge.model.retry.max_attempts": "run.select.judge.model.retry.max_tries",
};

/**
 * `data` (one layer, from `source`) with every renamed key moved to its new name, in place, and a
 * warning for each. `prefix` is where `data` sits in the whole config ("" for a whole layer).
 * Throws ConfigError when the layer sets both names of one key.
 */
export function renameOldKeys(data: Plain, source: string, prefix = ""): string[] {
  const warnings: string[] = [];
  for (const [oldPath, newPath] of Object.entries(RENAMED_KEYS)) {
    if (prefix && !oldPath.startsWith(`${prefix}.`)) continue;
    const rel = (p: string) => (prefix ? p.slice(prefix.length + 1) : p).split(".");
    const oldParts = rel(oldPath);
    const parent = walk(data, oldParts.slice(0, -1));
    const oldKey = oldParts[oldParts.length - 1];
    if (!parent || !Object.hasOwn(parent, oldKey)) continue;
    const newKey = rel(newPath).at(-1) as string;
    if (Object.hasOwn(parent, newKey))
      throw new ConfigError(
        `${oldPath} and ${newPath} (from ${source}) are one setting under its old and new name: keep ${newPath} only`,
      );
    parent[newKey] = parent[oldKey];
    delete parent[oldKey];
    warnings.push(`${oldPath} (from ${source}) is now named ${newPath}: read as that; rename it there`);
  }
  return warnings;
}

function walk(data: Plain, parts: string[]): Plain | undefined {
  let at: unknown = data;
  for (const p of parts) {
    if (!isPlain(at)) return undefined;
    at = at[p];
  }
  return isPlain(at) ? at : undefined;
}
