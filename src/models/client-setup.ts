import type { ModelConfig } from "../config/schema.js";
import { createCheckedFetch } from "./checked-fetch.js";
import { type ClientDeps, timeoutMs } from "./client-deps.js";
import { resolveEndpoint } from "./endpoint.js";
import { createCostFunction } from "./pricing.js";
import type { Usage } from "./types.js";

/** What both SDK clients are built from: the SDK options (endpoint, key, retries off) and pricing. */
export interface ClientSetup {
  sdkOptions: {
    apiKey: string;
    baseURL: string;
    maxRetries: 0;
    timeout: number;
    fetch: ReturnType<typeof createCheckedFetch>;
  };
  cost: (usage: Usage) => number;
}

export function clientSetup(
  provider: "openai" | "anthropic",
  name: string,
  config: ModelConfig,
  deps: ClientDeps,
): ClientSetup {
  const endpoint = resolveEndpoint(provider, config, deps.env);
  return {
    sdkOptions: {
      apiKey: endpoint.apiKey,
      baseURL: endpoint.baseURL,
      maxRetries: 0,
      timeout: timeoutMs(config.request_timeout),
      fetch: createCheckedFetch(config.max_response_bytes),
    },
    cost: createCostFunction({
      qualifiedName: name,
      hosted: endpoint.hosted,
      price: config.price,
      costTracking: config.cost_tracking,
      warn: deps.warn,
    }),
  };
}
