import type { ChatMessage, ModelResult } from "../models/types.js";
import type { ParseResult } from "./protocols/types.js";
import type { AgentTemplates } from "./templates.js";

const now = () => new Date().toISOString();

/** The assistant message of a successful model call, with its bookkeeping in `extra`. */
export function replyMessage(res: Extract<ModelResult, { ok: true }>, step: number): ChatMessage {
  return {
    ...res.message,
    role: "assistant",
    extra: {
      raw: res.raw,
      finish_reason: res.finishReason,
      usage: { prompt_tokens: res.usage.promptTokens, completion_tokens: res.usage.completionTokens },
      cost: res.cost,
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
  const extra = { format_error: true, kind: cutOff ? "length" : "format_error", step, timestamp: now() };
  const text = cutOff ? parsed.error : templates.formatError(parsed.error, reply, finishReason, vars);
  const toolReplies = (parsed.toolReplies ?? []).map(
    (t): ChatMessage => ({ role: "tool", tool_call_id: t.id, content: t.text, extra }),
  );
  return [...toolReplies, { role: "user", content: text, extra }];
}
