import type { ModelConfig } from "../../src/config/schema.js";

/** A complete model config for tests; `overrides` replace top-level fields. */
export function modelConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return {
    model_name: "openai/test-model",
    base_url: null,
    replica_cooldown: 30,
    api_key_env: null,
    model_kwargs: {},
    vision: false,
    price: null,
    retry: { max_tries: 3, initial_delay: 1, max_delay: 30, max_total: 0 },
    request_timeout: 10,
    max_response_bytes: 64 * 1024 ** 2,
    observation_template: "{{ output }}",
    format_error_template: "format error",
    action_regex: null,
    cost_tracking: "default",
    reasoning_history: "drop",
    family: null,
    api: "chat",
    constrain_actions: false,
    server: null,
    gguf: {
      context_size: 4096,
      threads: null,
      gpu_layers: 0,
      sequences: null,
      load_timeout: 600,
      load_memory_gib: null,
    },
    ...overrides,
  };
}

/** A sleep that returns at once and remembers what it was asked to wait (ms). */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
