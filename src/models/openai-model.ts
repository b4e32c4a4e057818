import type { ModelConfig } from "../config/schema.js";
import { type ClientDeps, requestKwargs } from "./client-deps.js";
import { clientSetup } from "./client-setup.js";
import { constraintFields } from "./constraints.js";
import { parseCompletion, toWireMessage, toWireTool } from "./openai-wire.js";
import type { ReasoningField } from "./reasoning.js";
import { reasoningPolicy } from "./reasoning-chain.js";
import { postTo, type Replicas } from "./replica-post.js";
import { sendWithRetries } from "./send-with-retries.js";
import { detectServer, type ServerFacts } from "./server-detect.js";
import type { Model, ModelRequest, ModelResult } from "./types.js";
import { WireBody } from "./wire-body.js";

/**
 * A model behind an OpenAI-compatible chat-completions endpoint (hosted OpenAI, vLLM, llama.cpp,
 * SGLang, Ollama, ...): `POST <base>/chat/completions` through json-post.ts. `model` is the name
 * sent in the request (without the `openai/` prefix). Throws only for configuration errors.
 *
 * Reasoning is read from the reply (reasoning.ts) and sent back as `model.reasoning_history` says
 * (`keep`: all of it; `chain`: the current tool-call chain's, by `model.family`'s rule,
 * reasoning-chain.ts; `drop`: none), in the field the server's replies used. With
 * `model.constrain_actions`, the server (`model.server`, else asked once, server-detect.ts) is
 * sent the fields that enforce the action format (constraints.ts). With `replicas`
 * (`model.base_url` as a list) each request goes to a replica of the pool (replica-pool.ts).
 */
export function createOpenAIModel(
  config: ModelConfig,
  model: string,
  deps: ClientDeps,
  replicas?: Replicas,
): Model {
  const name = `openai/${model}`;
  const { endpoint, post, cost } = clientSetup("openai", name, config, deps);
  const send = postTo(post, endpoint.baseURL, "/chat/completions", replicas);
  const kwargs = requestKwargs(config.model_kwargs, name);
  let reasoningField: ReasoningField | null = null;
  let facts: Promise<ServerFacts> | null = null;
  const serverFacts = (): Promise<ServerFacts> => {
    facts ??= config.server
      ? Promise.resolve({ server: config.server, contextLength: null, source: "model.server" })
      : detectServer(replicas ? replicas.pool.urls[0] : endpoint.baseURL, model);
    return facts;
  };
  const maxField = "max_completion_tokens" in kwargs ? "max_completion_tokens" : "max_tokens";
  const maxValue = typeof kwargs[maxField] === "number" ? (kwargs[maxField] as number) : null;

  const wire = new WireBody((m, variant) => [
    toWireMessage(m, variant === "drop" ? null : (variant as ReasoningField)),
  ]);
  const sent = reasoningPolicy(config.reasoning_history, config.family);
  /** How each message's reasoning goes in this request (WireBody's variants). */
  const variants = (messages: ModelRequest["messages"]): string[] => {
    const field: ReasoningField = reasoningField ?? "reasoning_content";
    return sent(messages).map((s) => (s ? field : "drop"));
  };

  async function query(request: ModelRequest): Promise<ModelResult> {
    // messages are serialised once each (wire-body.ts), put in place when the body is sent
    const body: Record<string, unknown> = { ...kwargs, model, messages: null };
    if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toWireTool);
    let contextLength: number | undefined;
    if (config.constrain_actions && request.constraint) {
      const known = await serverFacts();
      if (known.contextLength !== null) contextLength = known.contextLength;
      const fields = constraintFields(known.server, request.constraint);
      if ("error" in fields)
        return { ok: false, kind: "fatal", message: `${name}: ${fields.error}`, tries: 0 };
      Object.assign(body, fields.fields);
    }
    const layout = variants(request.messages);
    const result = await sendWithRetries(
      name,
      config,
      deps,
      request,
      (signal, overrides) => send(wire.bytes({ ...body, ...overrides }, request.messages, layout), signal),
      parseCompletion,
      cost,
      { name: maxField, value: maxValue },
      contextLength,
    );
    if (result.ok && result.reasoningField) reasoningField = result.reasoningField;
    const { reasoningField: _, ...out } = result;
    return out as ModelResult;
  }

  return { name, vision: config.vision, query };
}
