import type { ModelConfig } from "../config/schema.js";
import { withCallSignal } from "./call-signal.js";
import type { ClientDeps } from "./client-deps.js";
import { classifyFailure } from "./failure.js";
import { withRetries } from "./retry.js";
import type { ChatMessage, ModelRequest, ModelResult, Usage } from "./types.js";

/** What a wire parser makes of a response body. */
export interface ParsedReply {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
}

/**
 * One model call as both clients make it: send through the SDK with a per-call signal, parse the
 * body, retry what is retryable (shared policy, retry.ts), and price the usage. Never throws.
 */
export async function sendWithRetries(
  name: string,
  config: ModelConfig,
  deps: ClientDeps,
  request: ModelRequest,
  send: (signal: AbortSignal | undefined) => Promise<unknown>,
  parse: (raw: unknown) => ParsedReply,
  cost: (usage: Usage) => number,
): Promise<ModelResult> {
  const result = await withRetries(
    name,
    async () => {
      const raw = await withCallSignal(request.signal, send);
      return { raw, ...parse(raw) };
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
