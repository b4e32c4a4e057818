import type { ModelConfig } from "../config/schema.js";
import { type ClientDeps, requestKwargs } from "./client-deps.js";
import { clientSetup } from "./client-setup.js";
import { reasoningPolicy } from "./reasoning-chain.js";
import { postTo, type Replicas } from "./replica-post.js";
import { parseResponse, toInputItems, toResponsesTool } from "./responses-wire.js";
import { sendWithRetries } from "./send-with-retries.js";
import type { Model, ModelRequest, ModelResult } from "./types.js";
import { WireBody } from "./wire-body.js";

/**
 * Chat-completions kwargs in the Responses API's names, so one preset serves both
 * (`model.api`): `reasoning_effort` becomes `reasoning.effort`, `max_tokens` /
 * `max_completion_tokens` become `max_output_tokens`. `store` is false unless set: patchloop sends
 * the whole history each time and never refers to a stored response.
 */
export function responsesKwargs(kwargs: Record<string, unknown>): Record<string, unknown> {
  const { reasoning_effort: effort, max_tokens, max_completion_tokens, ...out } = kwargs;
  if (effort !== undefined && out.reasoning === undefined) out.reasoning = { effort };
  const max = max_completion_tokens ?? max_tokens;
  if (max !== undefined && out.max_output_tokens === undefined) out.max_output_tokens = max;
  return { store: false, ...out };
}

/**
 * A model behind an OpenAI-compatible Responses API (`model.api: responses`): `POST <base>/responses`
 * through json-post.ts, with the same retries, failure classes, usage and pricing as the chat
 * client (send-with-retries.ts). vLLM serves it for gpt-oss in harmony: reasoning, tool calls and
 * results, and the final answer travel as their own items (responses-wire.ts). The reasoning goes
 * back as `reasoning` items as `model.reasoning_history` says (reasoning-chain.ts). With
 * `model.constrain_actions`, a tool call is required (`tool_choice: "required"`); a text format
 * cannot be enforced here. Throws only for configuration errors.
 */
export function createResponsesModel(
  config: ModelConfig,
  model: string,
  deps: ClientDeps,
  replicas?: Replicas,
): Model {
  const name = `openai/${model}`;
  const { endpoint, post, cost } = clientSetup("openai", name, config, deps);
  const send = postTo(post, endpoint.baseURL, "/responses", replicas);
  const kwargs = responsesKwargs(requestKwargs(config.model_kwargs, name));
  const maxValue = typeof kwargs.max_output_tokens === "number" ? kwargs.max_output_tokens : null;
  const sent = reasoningPolicy(config.reasoning_history, config.family);
  const wire = new WireBody((m, variant) => toInputItems(m, variant === "reasoning"), "input");

  async function query(request: ModelRequest): Promise<ModelResult> {
    // input items are serialised once per message (wire-body.ts), put in place when the body is sent
    const body: Record<string, unknown> = { ...kwargs, model, input: null };
    if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toResponsesTool);
    if (config.constrain_actions && request.constraint) {
      if (request.constraint.kind !== "tool_call")
        return {
          ok: false,
          kind: "fatal",
          message: `${name}: model.constrain_actions with model.api responses can require a tool call (agent.protocol tool_calls), not enforce the \`\`\`${request.constraint.tag} text format; use agent.protocol tool_calls, or model.api chat`,
          tries: 0,
        };
      body.tool_choice = "required";
    }
    const layout = sent(request.messages).map((s) => (s ? "reasoning" : "drop"));
    return sendWithRetries(
      name,
      config,
      deps,
      request,
      (signal, overrides) => send(wire.bytes({ ...body, ...overrides }, request.messages, layout), signal),
      parseResponse,
      cost,
      { name: "max_output_tokens", value: maxValue },
    ).then(({ reasoningField: _, ...out }) => out as ModelResult);
  }

  return { name, vision: config.vision, query };
}
