import type { ModelConfig } from "../config/schema.js";
import { createAnthropicModel } from "./anthropic-model.js";
import type { ClientDeps } from "./client-deps.js";
import { parseModelName } from "./model-name.js";
import { createOpenAIModel } from "./openai-model.js";
import { createReplayModel } from "./replay.js";
import { realSleep } from "./retry.js";
import type { Model } from "./types.js";

/** Optional surroundings of `createModel`; every field has a real default. */
export interface CreateModelOptions {
  /** Where warnings go (default: stderr). Unknown-price warnings come once per model name per function. */
  warn?: (msg: string) => void;
  /** Environment for API keys and base URLs (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Wait between retries (default: a real timer). Tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1) (default: Math.random). */
  random?: () => number;
}

const stderrWarn = (msg: string): void => {
  process.stderr.write(`warning: ${msg}\n`);
};

/**
 * The model client for `config.model_name`: `openai/<name>` (or a bare name), `anthropic/<name>`,
 * `replay:<file>`. Throws for configuration errors only (unknown provider, bad base URL, missing
 * API key for a hosted API, unreadable replay file, `stream: true`); request failures later come
 * back from `query` as data.
 */
export function createModel(config: ModelConfig, opts: CreateModelOptions = {}): Model {
  const parsed = parseModelName(config.model_name);
  if (parsed.provider === "replay") return createReplayModel(parsed.path, { vision: config.vision });
  const deps: ClientDeps = {
    warn: opts.warn ?? stderrWarn,
    env: opts.env ?? process.env,
    sleep: opts.sleep ?? realSleep,
    random: opts.random ?? Math.random,
  };
  return parsed.provider === "anthropic"
    ? createAnthropicModel(config, parsed.model, deps)
    : createOpenAIModel(config, parsed.model, deps);
}
