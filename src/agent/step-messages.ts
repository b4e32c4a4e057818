import { MAX_JSON_DEPTH, valueTooDeep } from "../models/json-depth.js";
import type { ChatMessage, MessageExtra, ModelResult, Usage } from "../models/types.js";
import type { ParseResult } from "./protocols/types.js";
import type { AgentTemplates } from "./templates.js";

const now = () => new Date().toISOString();

/** The call's usage as reported, with the reasoning's tokens estimated at 4 characters a token when the server did not say. */
function recordedUsage(res: Extract<ModelResult, { ok: true }>): Usage {
  const text = res.message.reasoning;
  if (res.usage.reasoning_tokens !== undefined || !text) return { ...res.usage };
  return { ...res.usage, reasoning_tokens: Math.ceil(text.length / 4), reasoning_tokens_estimated: true };
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
      usage: recordedUsage(res),
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

/**
 * Cuts a reply's tool calls to the first `cap` (`agent.max_actions_per_reply`; 0: no cap) before
 * it is parsed, recorded or sent back: the rest never run, and since the reply the conversation
 * keeps holds only the calls that ran, every call still gets its tool message (as the APIs
 * require) without one message per dropped call. Returns how many were cut, also kept in
 * `extra.dropped_actions` (the response body in `extra.raw` keeps them all).
 */
export function capToolCalls(reply: ChatMessage, cap: number): number {
  const calls = reply.tool_calls;
  if (cap <= 0 || !Array.isArray(calls) || calls.length <= cap) return 0;
  const dropped = calls.length - cap;
  reply.tool_calls = calls.slice(0, cap);
  reply.extra = { ...reply.extra, dropped_actions: dropped };
  return dropped;
}

/** The message after a reply's observations telling the model that `dropped` of its actions did not run, and why. */
export function droppedActionsMessage(dropped: number, cap: number, step: number): ChatMessage {
  const asked = dropped + cap;
  return {
    role: "user",
    content:
      `Your last reply asked for ${asked} actions; only the first ${cap} were run (at most ${cap} run per reply: agent.max_actions_per_reply). ` +
      `The other ${dropped} were not run and are removed from your reply. ` +
      `Send the ones you still need in your next replies, at most ${cap} in each.`,
    extra: { kind: "actions_dropped", dropped_actions: dropped, step, timestamp: now() },
  };
}
