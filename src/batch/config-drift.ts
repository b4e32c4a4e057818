import { existsSync } from "node:fs";
import { join } from "node:path";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import { scrubObjectSecrets } from "../config/secret-values.js";
import { BatchInputError } from "../run-folder/errors.js";
import { readRunJson } from "../run-folder/run-json.js";

/**
 * Keys that may change between runs of one folder without a warning: where the server is and how
 * patiently it is called, not what the agent does.
 */
const NEUTRAL = [
  "model.base_url",
  "model.replica_cooldown",
  "run.queue",
  "model.api_key_env",
  "model.retry",
  "model.request_timeout",
  "model.max_response_bytes",
  "model.price",
  "environment.executable",
  "environment.pull_timeout",
];

/** One difference between two configs: its dotted key and both values (JSON). */
export interface ConfigChange {
  key: string;
  before: string;
  after: string;
}

/** A value as JSON, long ones (templates) cut to 80 characters. */
const show = (v: unknown) => {
  if (v === undefined) return "(unset)";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Differences between two (redacted) configs, by dotted key, neutral keys left out. */
export function configChanges(before: unknown, after: unknown, prefix = ""): ConfigChange[] {
  if (NEUTRAL.includes(prefix)) return [];
  const isMap = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => configChanges(before[k], after[k], prefix ? `${prefix}.${k}` : k));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ key: prefix || "(config)", before: show(before), after: show(after) }];
}

/** What an earlier run of the folder recorded, for run.json's `earlier_configs`. */
export interface EarlierConfig {
  started_at: string | null;
  config: unknown;
}

/**
 * Checks that a folder that already holds results is resumed with the config it was run with:
 * otherwise preds.json would mix two models or two agents without a trace. Returns the configs
 * of earlier runs (kept in run.json); throws BatchInputError listing the changes unless `allow`.
 */
export function checkConfigDrift(outputDir: string, config: Config, allow: boolean): EarlierConfig[] {
  const path = join(outputDir, "run.json");
  if (!existsSync(path)) return [];
  const read = readRunJson(path);
  if (!read.ok) return [];
  const prev = read.run;
  const earlier: EarlierConfig[] = prev.info.earlier_configs ?? [];
  const hasResults = Object.keys(prev.instances ?? {}).length > 0;
  if (!hasResults || prev.config === undefined) return earlier;
  // run.json's config was redacted and scrubbed when written (see RunRecord): compare like with like.
  const changes = configChanges(prev.config, scrubObjectSecrets(redactSecrets(config), { config }));
  if (changes.length === 0) return earlier;
  if (!allow) {
    const listed = changes.slice(0, 6).map((c) => `${c.key}: ${c.before} -> ${c.after}`);
    if (changes.length > 6) listed.push(`and ${changes.length - 6} more`);
    throw new BatchInputError(
      `${outputDir} holds results of a run with another config:\n  ${listed.join("\n  ")}\n` +
        "Resuming would mix both in one preds.json. Use a new -o folder, or pass --allow-config-change " +
        "to continue anyway (run.json then keeps the earlier config under info.earlier_configs).",
    );
  }
  const started = typeof prev.started_at === "string" ? prev.started_at : null;
  return [...earlier, { started_at: started, config: prev.config }];
}
