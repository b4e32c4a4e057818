import type { ModelConfig } from "../config/schema.js";
import { withCallSignal } from "./call-signal.js";
import { type ClientDeps, timeoutMs } from "./client-deps.js";
import { classifyFailure } from "./failure.js";
import type { ReasoningField } from "./reasoning.js";
import { withRetries } from "./retry.js";
import type { ChatMessage, MaxTokensLowered, ModelRequest, ModelResult, Usage } from "./types.js";

/** What a wire parser makes of a response body. */
export interface ParsedReply {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
  /** Where the reply carried its reasoning, when it had any. */
  reasoningField?: ReasoningField | null;
}

/** Fields of one try that differ from the first (a lowered max_tokens). */
export type Overrides = Record<string, number>;

/** How a client names and reads its max-token request field. */
export interface MaxTokensField {
  /** The field to lower (`max_completion_tokens` when the request has it, else `max_tokens`). */
  name: string;
  /** Its value in the request, or null when the request has none. */
  value: number | null;
}

/**
 * One model call as both clients make it: send each try with a signal of its own that
 * `model.request_timeout` aborts (call-signal.ts), parse the body, retry what is retryable (shared
 * policy, retry.ts), and price the usage. When the server says the prompt fits but prompt +
 * max_tokens does not, the call is tried once more with the max-token field lowered to what fits,
 * and that is recorded (`maxTokensLowered`). Never throws.
 */
export async function sendWithRetries(
  name: string,
  config: ModelConfig,
  deps: ClientDeps,
  request: ModelRequest,
  send: (signal: AbortSignal, overrides: Overrides) => Promise<unknown>,
  parse: (raw: unknown) => ParsedReply,
  cost: (usage: Usage) => number,
  maxTokens: MaxTokensField,
  knownContextLength?: number,
): Promise<ModelResult & { reasoningField?: ReasoningField | null }> {
  const overrides: Overrides = {};
  let lowered: MaxTokensLowered | undefined;
  let contextLength = knownContextLength;
  const result = await withRetries(
    name,
    async () => {
      const raw = await withCallSignal(request.signal, timeoutMs(config.request_timeout), (signal) =>
        send(signal, overrides),
      );
      return { raw, ...parse(raw) };
    },
    config.retry,
    {
      sleep: deps.sleep,
      random: deps.random,
      signal: request.signal,
      classify: (err) => {
        const failure = classifyFailure(err, config.request_timeout, request.signal);
        if (failure.contextLength !== undefined) contextLength = failure.contextLength;
        return failure;
      },
      onRetry: request.onRetry,
      lowerMaxTokens: (failure) => {
        if (lowered || failure.fits === undefined) return false;
        lowered = {
          field: maxTokens.name,
          from: maxTokens.value,
          to: failure.fits,
          context_length: failure.contextLength ?? null,
        };
        overrides[maxTokens.name] = failure.fits;
        return true;
      },
    },
  );
  if (!result.ok) {
    const message = lowered
      ? result.message.replace(
          /; it still did not fit with max_tokens lowered to \d+$/,
          `; it still did not fit after ${lowered.field} was lowered from ${lowered.from ?? "(unset)"} to ${lowered.to}`,
        )
      : result.message;
    return { ...result, message, ...(contextLength !== undefined ? { contextLength } : {}) };
  }
  const { raw, message, finishReason, usage, reasoningField } = result.value;
  return {
    ok: true,
    message,
    finishReason,
    usage,
    cost: cost(usage),
    raw,
    tries: result.tries,
    ...(contextLength !== undefined ? { contextLength } : {}),
    ...(lowered ? { maxTokensLowered: lowered } : {}),
    reasoningField: reasoningField ?? null,
  };
}
