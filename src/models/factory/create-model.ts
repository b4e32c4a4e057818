import { parseModelName } from "../../config/model-name.js";
import type { ModelConfig } from "../../config/schema.js";
import { createAnthropicModel } from "../anthropic-model.js";
import type { ClientDeps } from "../client-deps.js";
import { createGgufModel } from "../gguf/gguf-model.js";
import { ggufFileProblem, runtimeProblem } from "../gguf/model-file.js";
import { createOpenAIModel } from "../openai-model.js";
import { createReplayModel } from "../replay.js";
import { baseUrls, createReplicaPool, type ReplicaPool } from "../replica-pool.js";
import { createResponsesModel } from "../responses-model.js";
import { realSleep } from "../retry.js";
import type { Model } from "../types.js";

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
  /**
   * The replicas of `model.base_url` (a list) shared with other clients of this process, so that
   * "fewest in flight" counts all of them (default: a pool of this client's own).
   */
  replicas?: ReplicaPool;
  /** Clock of this client's own pool of replicas, which times their cooldowns (default: Date.now). */
  now?: () => number;
  /** Hears of every request sent to a replica (per-instance counts). */
  onReplica?: (url: string, outcome: "ok" | "failed") => void;
  /** Tasks that query this process's models at once (`-w`): a `gguf:` model's context gets one sequence each. */
  parallel?: number;
}

const stderrWarn = (msg: string): void => {
  process.stderr.write(`warning: ${msg}\n`);
};

/**
 * The model client for `config.model_name`: `openai/<name>` (or a bare name), `anthropic/<name>`,
 * `replay:<file>`, `gguf:<file>` (in this process, gguf/gguf-model.ts). Throws for configuration errors only (unknown provider, bad base URL, missing
 * API key for a hosted API, unreadable replay file, `stream: true`, a missing GGUF runtime or file); request failures later come
 * back from `query` as data. `model.base_url` as a list sends each request to one of its replicas
 * (replica-pool.ts).
 */
export function createModel(config: ModelConfig, opts: CreateModelOptions = {}): Model {
  const parsed = parseModelName(config.model_name);
  if (parsed.provider === "replay") return createReplayModel(parsed.path, { vision: config.vision });
  if (parsed.provider === "gguf") {
    const problem = runtimeProblem() ?? ggufFileProblem(parsed.path);
    if (problem) throw new Error(problem);
    return createGgufModel(config, parsed.path, opts.parallel ?? 1);
  }
  const deps: ClientDeps = {
    warn: opts.warn ?? stderrWarn,
    env: opts.env ?? process.env,
    sleep: opts.sleep ?? realSleep,
    random: opts.random ?? Math.random,
  };
  const servers = baseUrls(config).length;
  if (parsed.provider === "anthropic") {
    if (servers > 1)
      throw new Error(
        `model.base_url lists ${servers} servers, but replicas are for OpenAI-compatible servers (openai/<name>); give ${config.model_name} one base URL`,
      );
    return createAnthropicModel(config, parsed.model, deps);
  }
  const pool = opts.replicas ?? createReplicaPool(config, opts.now);
  return (config.api === "responses" ? createResponsesModel : createOpenAIModel)(
    localServer(config, parsed.model, parsed.via, deps),
    parsed.model,
    deps,
    pool ? { pool, ...(opts.onReplica ? { onRequest: opts.onReplica } : {}) } : undefined,
  );
}

/** Names of models the hosted OpenAI API serves (the default endpoint when no base URL is set). */
const OPENAI_MODELS = /^(gpt-|o\d|chatgpt|codex|computer-use|text-|davinci|babbage)/i;

const PORTS = "vLLM :8000, SGLang :30000, llama.cpp :8080, Ollama :11434";

/**
 * The config for an OpenAI-compatible model, with a base URL where the name implies one: Ollama's
 * litellm prefixes mean http://127.0.0.1:11434/v1. Throws with the flag to pass when the name is
 * clearly not a hosted OpenAI model but no base URL is set (`-m qwen3`, `hosted_vllm/...`).
 */
function localServer(
  config: ModelConfig,
  model: string,
  via: string | undefined,
  deps: ClientDeps,
): ModelConfig {
  const base = config.base_url || deps.env.OPENAI_BASE_URL;
  if (via)
    deps.warn(
      `model.model_name ${config.model_name}: litellm's ${via}/ prefix; the model "${model}" is asked for on an OpenAI-compatible server`,
    );
  if (base) return config;
  if (via === "ollama" || via === "ollama_chat") return { ...config, base_url: "http://127.0.0.1:11434/v1" };
  if (via)
    throw new Error(
      `model.model_name ${config.model_name}: litellm's ${via}/ prefix means a server of your own, and no base URL is set; pass --base-url http://HOST:PORT/v1 (${PORTS}) or set model.base_url / OPENAI_BASE_URL`,
    );
  if (!OPENAI_MODELS.test(model))
    throw new Error(
      `model.model_name ${config.model_name} would go to the hosted OpenAI API (no base URL is set), which does not serve "${model}". For a local server pass --base-url, e.g. --base-url http://127.0.0.1:8000/v1 (${PORTS}), or set model.base_url / OPENAI_BASE_URL`,
    );
  return config;
}
