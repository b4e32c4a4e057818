import { MalformedResponseError } from "./failure.js";
import { stringifyIterative, valueTooDeep } from "./json-depth.js";
import { asRecord, count, snippet } from "./json-shape.js";
import { type ReasoningField, splitThinking, wireReasoning, withThinkTags } from "./reasoning.js";
import type { ChatMessage, ToolCall, ToolSpec, Usage } from "./types.js";

/**
 * A message as sent: the chat message without patchloop's `extra`. `reasoning` is where an
 * assistant message's reasoning goes, when this request sends it back (reasoning-chain.ts says
 * which): the field the server's replies used, or inside `<think>` tags in the content when the
 * server left it there; null sends none.
 */
export function toWireMessage(
  m: ChatMessage,
  reasoning: ReasoningField | null = null,
): Record<string, unknown> {
  const wire: Record<string, unknown> = { role: m.role, content: m.content };
  if (reasoning !== null && m.role === "assistant" && m.reasoning) {
    if (reasoning === "think_tags")
      wire.content = withThinkTags(m.reasoning, typeof m.content === "string" ? m.content : "");
    else wire[reasoning] = m.reasoning;
  }
  if (m.tool_calls && m.tool_calls.length > 0) wire.tool_calls = m.tool_calls;
  if (m.tool_call_id !== undefined) wire.tool_call_id = m.tool_call_id;
  if (m.name !== undefined) wire.name = m.name;
  return wire;
}

/** A tool as sent: `{type: "function", function: {name, description, parameters}}`. */
export function toWireTool(t: ToolSpec): Record<string, unknown> {
  return {
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  };
}

/** Text of a content field: a string, or the text parts of a list, or null. */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => asRecord(p))
      .filter((p) => p !== null && typeof p.text === "string")
      .map((p) => p?.text)
      .join("");
  }
  return null;
}

/**
 * Tool-call arguments as text. Servers send a JSON string; a few send the object itself, which is
 * serialised without recursion (a hostile reply may nest it 100,000 deep; the tool-calls protocol
 * then reports the depth as a format error).
 */
export function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  if (args === undefined || args === null) return "{}";
  return valueTooDeep(args, 1000) ? stringifyIterative(args) : (JSON.stringify(args) ?? "{}");
}

function toolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item, i) => {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    if (!call || !fn || typeof fn.name !== "string") {
      throw new MalformedResponseError(`tool call ${i} has no function name: ${snippet(item)}`);
    }
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${i}`;
    return { id, type: "function", function: { name: fn.name, arguments: argumentsText(fn.arguments) } };
  });
}

/** Reasoning tokens as OpenAI (`completion_tokens_details.reasoning_tokens`) or SGLang (`reasoning_tokens`) report them. */
function reasoningTokens(usage: Record<string, unknown> | null): number | undefined {
  const details = asRecord(usage?.completion_tokens_details);
  const n = details?.reasoning_tokens ?? usage?.reasoning_tokens;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Prompt tokens served from the server's prefix cache (`prompt_tokens_details.cached_tokens`), when reported. */
function cachedTokens(usage: Record<string, unknown> | null): number | undefined {
  const n = asRecord(usage?.prompt_tokens_details)?.cached_tokens;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The parts of a chat.completion body that patchloop uses. The reasoning is taken from
 * `reasoning` / `reasoning_content`, or split off `<think>...</think>` in the content, so the
 * content holds the answer only. Throws MalformedResponseError.
 */
export function parseCompletion(body: unknown): {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
  reasoningField: ReasoningField | null;
} {
  const root = asRecord(body);
  const choice = Array.isArray(root?.choices) ? asRecord(root.choices[0]) : null;
  const msg = asRecord(choice?.message);
  if (!root || !choice || !msg) throw new MalformedResponseError(`no choices[0].message in ${snippet(body)}`);
  const calls = toolCalls(msg.tool_calls);
  let content = contentText(msg.content);
  let reasoning: string | null = null;
  let reasoningField: ReasoningField | null = null;
  const fromField = wireReasoning(msg);
  if (fromField) {
    reasoning = fromField.text;
    reasoningField = fromField.field;
  } else if (content !== null) {
    const split = splitThinking(content);
    if (split.reasoning !== null) {
      content = split.answer;
      reasoning = split.reasoning;
      reasoningField = "think_tags";
    }
  }
  const message: ChatMessage = { role: "assistant", content };
  if (reasoning !== null) message.reasoning = reasoning;
  if (Array.isArray(msg.tool_calls)) message.tool_calls = calls;
  const usage = asRecord(root.usage);
  const thinking = reasoningTokens(usage);
  const cached = cachedTokens(usage);
  return {
    message,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage: {
      prompt_tokens: count(usage?.prompt_tokens),
      completion_tokens: count(usage?.completion_tokens),
      ...(thinking !== undefined ? { reasoning_tokens: thinking } : {}),
      ...(cached !== undefined ? { cached_tokens: cached } : {}),
    },
    reasoningField,
  };
}
