import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { ModelConfig } from "../config/schema.js";
import { type ClientDeps, requestKwargs } from "./client-deps.js";
import { clientSetup } from "./client-setup.js";
import { parseCompletion, toWireMessage, toWireTool } from "./openai-wire.js";
import { sendWithRetries } from "./send-with-retries.js";
import type { Model, ModelRequest, ModelResult } from "./types.js";

/**
 * A model behind an OpenAI-compatible chat-completions endpoint (hosted OpenAI, vLLM, llama.cpp,
 * SGLang, Ollama, ...), through the official SDK with its own retries off. `model` is the name
 * sent in the request (without the `openai/` prefix). Throws only for configuration errors.
 */
export function createOpenAIModel(config: ModelConfig, model: string, deps: ClientDeps): Model {
  const name = `openai/${model}`;
  const { sdkOptions, cost } = clientSetup("openai", name, config, deps);
  const kwargs = requestKwargs(config.model_kwargs, name);
  const client = new OpenAI(sdkOptions);

  async function query(request: ModelRequest): Promise<ModelResult> {
    const body: Record<string, unknown> = {
      ...kwargs,
      model,
      messages: request.messages.map(toWireMessage),
    };
    if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
    const params = body as unknown as ChatCompletionCreateParamsNonStreaming;
    return sendWithRetries(
      name,
      config,
      deps,
      request,
      (signal) => client.chat.completions.create(params, { signal }),
      parseCompletion,
      cost,
    );
  }

  return { name, vision: config.vision, query };
}
