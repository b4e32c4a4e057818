import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { ModelConfig } from "../config/schema.js";
import { withCallSignal } from "./call-signal.js";
import { createCheckedFetch } from "./checked-fetch.js";
import { type ClientDeps, requestKwargs, timeoutMs } from "./client-deps.js";
import { resolveEndpoint } from "./endpoint.js";
import { classifyFailure } from "./failure.js";
import { parseCompletion, toWireMessage, toWireTool } from "./openai-wire.js";
import { createCostFunction } from "./pricing.js";
import { withRetries } from "./retry.js";
import type { Model, ModelRequest, ModelResult } from "./types.js";

/**
 * A model behind an OpenAI-compatible chat-completions endpoint (hosted OpenAI, vLLM, llama.cpp,
 * SGLang, Ollama, ...), through the official SDK with its own retries off. `model` is the name
 * sent in the request (without the `openai/` prefix). Throws only for configuration errors.
 */
export function createOpenAIModel(config: ModelConfig, model: string, deps: ClientDeps): Model {
  const name = `openai/${model}`;
  const endpoint = resolveEndpoint("openai", config, deps.env);
  const kwargs = requestKwargs(config.model_kwargs, name);
  const client = new OpenAI({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseURL,
    maxRetries: 0,
    timeout: timeoutMs(config.request_timeout),
    fetch: createCheckedFetch(),
  });
  const cost = createCostFunction({
    qualifiedName: name,
    hosted: endpoint.hosted,
    price: config.price,
    costTracking: config.cost_tracking,
    warn: deps.warn,
  });

  async function query(request: ModelRequest): Promise<ModelResult> {
    const body: Record<string, unknown> = {
      ...kwargs,
      model,
      messages: request.messages.map(toWireMessage),
    };
    if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
    const params = body as unknown as ChatCompletionCreateParamsNonStreaming;
    const result = await withRetries(
      name,
      async () => {
        const raw: unknown = await withCallSignal(request.signal, (signal) =>
          client.chat.completions.create(params, { signal }),
        );
        return { raw, ...parseCompletion(raw) };
      },
      config.retry,
      {
        sleep: deps.sleep,
        random: deps.random,
        signal: request.signal,
        classify: (err) => classifyFailure(err, config.request_timeout, request.signal),
      },
    );
    if (!result.ok) return result;
    const { raw, message, finishReason, usage } = result.value;
    return { ok: true, message, finishReason, usage, cost: cost(usage), raw, attempts: result.attempts };
  }

  return { name, vision: config.vision, query };
}
