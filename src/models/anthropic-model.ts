import type { ModelConfig } from "../config/schema.js";
import { type AnthropicConversation, ConversionError, toAnthropicConversation } from "./anthropic-request.js";
import { parseAnthropicMessage } from "./anthropic-response.js";
import { type ClientDeps, requestKwargs } from "./client-deps.js";
import { clientSetup } from "./client-setup.js";
import { reasoningPolicy } from "./reasoning-chain.js";
import { sendWithRetries } from "./send-with-retries.js";
import type { Model, ModelRequest, ModelResult } from "./types.js";

/** `max_tokens` is required by the Messages API; used when model_kwargs has none. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/**
 * OpenAI's `parallel_tool_calls` (common in mini-swe-agent configs) has no field of that name in
 * the Messages API: `false` becomes `tool_choice.disable_parallel_tool_use`, `true` is the default.
 */
export function translateOpenAIKwargs(kwargs: Record<string, unknown>): Record<string, unknown> {
  const { parallel_tool_calls: parallel, ...out } = kwargs;
  if (parallel === false) {
    const choice = (out.tool_choice as Record<string, unknown> | undefined) ?? { type: "auto" };
    out.tool_choice = { ...choice, disable_parallel_tool_use: true };
  }
  return out;
}

/**
 * A model behind the Anthropic Messages API: `POST <base>/v1/messages` through json-post.ts.
 * Messages are converted at this edge (anthropic-request.ts) and replies converted back to the
 * OpenAI shape (anthropic-response.ts); `thinking` blocks become the message's `reasoning` and are
 * kept whole with their signatures, and go back unchanged as `model.reasoning_history` says
 * (reasoning-chain.ts; `chain` with `model.family: claude` sends those of the current tool-use
 * turn, which the API needs when thinking is on). Throws only for configuration errors.
 */
export function createAnthropicModel(config: ModelConfig, model: string, deps: ClientDeps): Model {
  const name = `anthropic/${model}`;
  const { endpoint, post, cost } = clientSetup("anthropic", name, config, deps);
  const url = `${endpoint.baseURL}/v1/messages`;
  const { max_tokens: maxTokens, ...rest } = requestKwargs(config.model_kwargs, name);
  const kwargs = translateOpenAIKwargs(rest);
  const sent = reasoningPolicy(config.reasoning_history, config.family);

  async function query(request: ModelRequest): Promise<ModelResult> {
    let conversation: AnthropicConversation;
    try {
      conversation = toAnthropicConversation(request.messages, request.tools, sent(request.messages));
    } catch (err) {
      if (!(err instanceof ConversionError)) throw err;
      return { ok: false, kind: "fatal", message: `${name}: ${err.message}`, tries: 0 };
    }
    const max = typeof maxTokens === "number" ? maxTokens : DEFAULT_ANTHROPIC_MAX_TOKENS;
    const body = { ...kwargs, model, max_tokens: max, ...conversation };
    const result = await sendWithRetries(
      name,
      config,
      deps,
      request,
      (signal, overrides) => post(url, JSON.stringify({ ...body, ...overrides }), signal),
      parseAnthropicMessage,
      cost,
      { name: "max_tokens", value: max },
    );
    const { reasoningField: _, ...out } = result;
    return out as ModelResult;
  }

  return { name, vision: config.vision, query };
}
