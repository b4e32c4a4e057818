import type { ModelConfig } from "../config/schema.js";
import type { ClientDeps } from "./client-deps.js";
import { type Endpoint, resolveEndpoint } from "./endpoint.js";
import { createJsonPost, type JsonPost } from "./json-post.js";
import { createCostFunction } from "./pricing.js";
import { requestHeaders } from "./request-headers.js";
import type { Usage } from "./types.js";

/** What both model clients are built from: where to send, how (headers, byte cap), and pricing. */
export interface ClientSetup {
  endpoint: Endpoint;
  post: JsonPost;
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
    endpoint,
    post: createJsonPost(config.max_response_bytes, requestHeaders(provider, endpoint.apiKey, deps.env)),
    cost: createCostFunction({
      qualifiedName: name,
      hosted: endpoint.hosted,
      price: config.price,
      costTracking: config.cost_tracking,
      warn: deps.warn,
    }),
  };
}
