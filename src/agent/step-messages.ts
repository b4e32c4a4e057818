import { MAX_JSON_DEPTH, valueTooDeep } from "../models/json-depth.js";
import type { ChatMessage, MessageExtra, ModelResult } from "../models/types.js";
import type { ParseResult } from "./protocols/types.js";
import type { AgentTemplates } from "./templates.js";

const now = () => new Date().toISOString();

/** The reasoning's tokens: as the server reported them, else estimated at 4 characters a token. */
function reasoningUsage(res: Extract<ModelResult, { ok: true }>): Record<string, unknown> {
  if (res.usage.reasoningTokens !== undefined) return { reasoning_tokens: res.usage.reasoningTokens };
  const text = res.message.reasoning;
  if (!text) return {};
  return { reasoning_tokens: Math.ceil(text.length / 4), reasoning_tokens_estimated: true };
}

/**
 * The assistant message of a successful model call, with its bookkeeping in `extra`: the raw
 * body (replaced by a note when a hostile reply nests it deeper than any walk should go), usage
 * with the reasoning's tokens, and the context length and lowered max_tokens when there were any.
 */
export function replyMessage(res: Extract<ModelResult, { ok: true }>, step: number): ChatMessage {
  const raw = valueTooDeep(res.raw, MAX_JSON_DEPTH * 4)
    ? { omitted: `the response body is nested more than ${MAX_JSON_DEPTH * 4} levels deep` }
    : res.raw;
  return {
    ...res.message,
    role: "assistant",
    extra: {
      raw,
      finish_reason: res.finishReason,
      usage: {
        prompt_tokens: res.usage.promptTokens,
        completion_tokens: res.usage.completionTokens,
        ...reasoningUsage(res),
      },
      cost: res.cost,
      ...(res.contextLength !== undefined ? { context_length: res.contextLength } : {}),
      ...(res.maxTokensLowered ? { max_tokens_lowered: res.maxTokensLowered } : {}),
      step,
      timestamp: now(),
    },
  };
}

/**
 * The messages answering a reply that cannot run: a tool message per call id (tool_calls
 * protocol), then a user message — the rendered format-error template, or the cut-off notice
 * when the reply hit the token limit.
 */
export function rejectionMessages(
  parsed: Extract<ParseResult, { ok: false }>,
  reply: ChatMessage,
  finishReason: string | null,
  templates: AgentTemplates,
  vars: Record<string, unknown>,
  step: number,
): ChatMessage[] {
  const cutOff = finishReason === "length";
  const extra: MessageExtra = {
    format_error: true,
    kind: cutOff ? "length" : "format_error",
    step,
    timestamp: now(),
  };
  const text = cutOff
    ? parsed.error
    : templates.formatError(parsed.error, reply, finishReason, vars, parsed.actions ?? []);
  const toolReplies = (parsed.toolReplies ?? []).map(
    (t): ChatMessage => ({ role: "tool", tool_call_id: t.id, content: t.text, extra }),
  );
  return [...toolReplies, { role: "user", content: text, extra }];
}
