import { createHash } from "node:crypto";
import { MalformedResponseError } from "./failure.js";
import { asRecord, count, snippet } from "./json-shape.js";
import { argumentsText } from "./openai-wire.js";
import type { ChatMessage, ContentPart, ToolCall, ToolSpec, Usage } from "./types.js";

/**
 * The Responses API wire format (`POST /responses`), as vLLM serves it for gpt-oss: a request's
 * `input` is a list of items, a reply's `output` too. Harmony's channels map onto them one to one:
 * the analysis channel is a `reasoning` item, a tool call on the commentary channel a
 * `function_call` item, its result a `function_call_output`, the final channel a `message`. So
 * nothing is flattened into chat messages and guessed back by a parser.
 */

/** A message's content as input content parts (`input_text`, `input_image`), or a plain string. */
function inputContent(content: ChatMessage["content"], role: ChatMessage["role"]): unknown {
  if (content === null) return "";
  if (typeof content === "string") return content;
  const textType = role === "assistant" ? "output_text" : "input_text";
  return content.map((p: ContentPart) =>
    p.type === "text"
      ? { type: textType, text: p.text }
      : { type: "input_image", image_url: p.image_url.url },
  );
}

/** The text of a content field, images left out (a tool result's output is text). */
function contentText(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

const hasText = (content: ChatMessage["content"]): boolean =>
  content !== null && (typeof content !== "string" || content !== "");

/**
 * The id a reasoning item is sent back with (the item type requires one): made from its text, so
 * the same reasoning has the same id at every step. vLLM does not look input ids up.
 */
export function reasoningItemId(text: string): string {
  return `rs_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
}

/**
 * The input items of one chat message. An assistant message becomes its reasoning (a `reasoning`
 * item, when `withReasoning`), its text (a `message`), and a `function_call` per tool call; a tool
 * result a `function_call_output` with the call's id; system and user messages a `message`.
 */
export function toInputItems(m: ChatMessage, withReasoning: boolean): Record<string, unknown>[] {
  if (m.role === "tool")
    return [{ type: "function_call_output", call_id: m.tool_call_id ?? "", output: contentText(m.content) }];
  if (m.role !== "assistant")
    return [{ type: "message", role: m.role, content: inputContent(m.content, m.role) }];
  const items: Record<string, unknown>[] = [];
  if (withReasoning && m.reasoning)
    items.push({
      type: "reasoning",
      id: reasoningItemId(m.reasoning),
      summary: [],
      content: [{ type: "reasoning_text", text: m.reasoning }],
    });
  if (hasText(m.content)) {
    const content =
      typeof m.content === "string"
        ? [{ type: "output_text", text: m.content }]
        : inputContent(m.content, "assistant");
    items.push({ type: "message", role: "assistant", content });
  }
  for (const call of m.tool_calls ?? [])
    items.push({
      type: "function_call",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  return items;
}

/** A tool as the Responses API takes it: `{type: "function", name, description, parameters}`. */
export function toResponsesTool(t: ToolSpec): Record<string, unknown> {
  return { type: "function", name: t.name, description: t.description, parameters: t.parameters };
}

/** The text parts of an output item's `content` (`output_text`, `reasoning_text`, ...), joined. */
function itemText(content: unknown, what: string, i: number): string {
  if (!Array.isArray(content)) throw new MalformedResponseError(`output[${i}] (${what}) has no content list`);
  return content
    .map((p) => asRecord(p))
    .filter((p) => p !== null && typeof p.text === "string")
    .map((p) => p?.text as string)
    .join("");
}

/** `tool_calls`, `length` (stopped at `max_output_tokens`), the other incomplete reason, or `stop`. */
function finishReason(root: Record<string, unknown>, called: boolean): string {
  if (called) return "tool_calls";
  if (root.status !== "incomplete") return "stop";
  const reason = asRecord(root.incomplete_details)?.reason;
  if (reason === "max_output_tokens") return "length";
  return typeof reason === "string" ? reason : "incomplete";
}

/**
 * The parts of a `response` object that patchloop uses: `reasoning` items become the message's
 * `reasoning` (their `content` text, else their `summary` text), assistant `message` items its
 * content, `function_call` items its tool calls (`call_id` is the id a result answers). The finish
 * reason is `tool_calls` when there are calls, `length` when the response stopped at
 * `max_output_tokens` (`status: incomplete`), else `stop`. Throws MalformedResponseError.
 */
export function parseResponse(body: unknown): {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
} {
  const root = asRecord(body);
  if (!root || !Array.isArray(root.output))
    throw new MalformedResponseError(`no output list in ${snippet(body)}`);
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: ToolCall[] = [];
  root.output.forEach((raw, i) => {
    const item = asRecord(raw);
    if (!item) throw new MalformedResponseError(`output[${i}] is not an object: ${snippet(raw)}`);
    if (item.type === "reasoning") {
      const text = Array.isArray(item.content) ? itemText(item.content, "reasoning", i) : "";
      thoughts.push(text !== "" ? text : itemText(item.summary ?? [], "reasoning summary", i));
    } else if (item.type === "message") {
      if (item.role === undefined || item.role === "assistant")
        texts.push(itemText(item.content, "message", i));
    } else if (item.type === "function_call") {
      if (typeof item.name !== "string" || item.name === "")
        throw new MalformedResponseError(`output[${i}] is a function_call without a name: ${snippet(raw)}`);
      const id = typeof item.call_id === "string" && item.call_id !== "" ? item.call_id : `call_${i}`;
      calls.push({
        id,
        type: "function",
        function: { name: item.name, arguments: argumentsText(item.arguments) },
      });
    }
  });
  const message: ChatMessage = { role: "assistant", content: texts.length > 0 ? texts.join("\n") : null };
  const reasoning = thoughts.filter((t) => t !== "").join("\n");
  if (reasoning !== "") message.reasoning = reasoning;
  if (calls.length > 0) message.tool_calls = calls;
  const usage = asRecord(root.usage);
  const thinking = asRecord(usage?.output_tokens_details)?.reasoning_tokens;
  const cached = asRecord(usage?.input_tokens_details)?.cached_tokens;
  return {
    message,
    finishReason: finishReason(root, calls.length > 0),
    usage: {
      prompt_tokens: count(usage?.input_tokens),
      completion_tokens: count(usage?.output_tokens),
      ...(typeof thinking === "number" && Number.isFinite(thinking) && thinking > 0
        ? { reasoning_tokens: thinking }
        : {}),
      ...(typeof cached === "number" && Number.isInteger(cached) && cached >= 0
        ? { cached_tokens: cached }
        : {}),
    },
  };
}
