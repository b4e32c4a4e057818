import { MalformedResponseError } from "./failure.js";
import { asRecord, count, snippet } from "./json-shape.js";
import type { ChatMessage, ToolCall, ToolSpec, Usage } from "./types.js";

/** A message as sent: the chat message without patchloop's `extra`. */
export function toWireMessage(m: ChatMessage): Record<string, unknown> {
  const wire: Record<string, unknown> = { role: m.role, content: m.content };
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

function toolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item, i) => {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    if (!call || !fn || typeof fn.name !== "string") {
      throw new MalformedResponseError(`tool call ${i} has no function name: ${snippet(item)}`);
    }
    const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${i}`;
    return { id, type: "function", function: { name: fn.name, arguments: args } };
  });
}

/** The parts of a chat.completion body that patchloop uses. Throws MalformedResponseError. */
export function parseCompletion(body: unknown): {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
} {
  const root = asRecord(body);
  const choice = Array.isArray(root?.choices) ? asRecord(root.choices[0]) : null;
  const msg = asRecord(choice?.message);
  if (!root || !choice || !msg) throw new MalformedResponseError(`no choices[0].message in ${snippet(body)}`);
  const calls = toolCalls(msg.tool_calls);
  const message: ChatMessage = { role: "assistant", content: contentText(msg.content) };
  if (Array.isArray(msg.tool_calls)) message.tool_calls = calls;
  const usage = asRecord(root.usage);
  return {
    message,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage: { promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens) },
  };
}
