import { MalformedResponseError } from "./failure.js";
import { stringifyIterative, valueTooDeep } from "./json-depth.js";
import { asRecord, count, snippet } from "./json-shape.js";
import type { ChatMessage, ThinkingBlock, ToolCall, Usage } from "./types.js";

const STOP_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
};

/** Anthropic `stop_reason` in OpenAI terms; unknown reasons (e.g. `refusal`) pass unchanged. */
export function mapStopReason(reason: unknown): string | null {
  if (typeof reason !== "string") return null;
  return STOP_REASONS[reason] ?? reason;
}

/**
 * An Anthropic `message` body in the OpenAI shape: text blocks joined into `content` (null when
 * there are none), `tool_use` blocks into `tool_calls` with `arguments = JSON.stringify(input)`.
 * `thinking` blocks join into `reasoning`, and are kept whole with their signatures (and
 * `redacted_thinking` blocks) in `thinking_blocks`, to be sent back unchanged. Prompt tokens
 * include cache reads and writes. Other blocks stay in the raw body.
 */
export function parseAnthropicMessage(body: unknown): {
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
} {
  const root = asRecord(body);
  if (!root || !Array.isArray(root.content)) {
    throw new MalformedResponseError(`no content list in ${snippet(body)}`);
  }
  const texts: string[] = [];
  const thinking: string[] = [];
  const blocks: ThinkingBlock[] = [];
  const calls: ToolCall[] = [];
  for (const item of root.content) {
    const block = asRecord(item);
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
    if (block?.type === "thinking" && typeof block.thinking === "string") {
      thinking.push(block.thinking);
      if (typeof block.signature === "string")
        blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    }
    if (block?.type === "redacted_thinking" && typeof block.data === "string")
      blocks.push({ type: "redacted_thinking", data: block.data });
    if (block?.type === "tool_use") {
      const id = typeof block.id === "string" ? block.id : `toolu_${calls.length}`;
      const name = typeof block.name === "string" ? block.name : "";
      const input = block.input ?? {};
      const args = valueTooDeep(input, 1000) ? stringifyIterative(input) : (JSON.stringify(input) ?? "{}");
      calls.push({ id, type: "function", function: { name, arguments: args } });
    }
  }
  const message: ChatMessage = { role: "assistant", content: texts.length > 0 ? texts.join("") : null };
  if (thinking.length > 0) message.reasoning = thinking.join("\n\n");
  if (blocks.length > 0) message.thinking_blocks = blocks;
  if (calls.length > 0) message.tool_calls = calls;
  const usage = asRecord(root.usage);
  const prompt =
    count(usage?.input_tokens) +
    count(usage?.cache_creation_input_tokens) +
    count(usage?.cache_read_input_tokens);
  const cacheRead = usage?.cache_read_input_tokens;
  return {
    message,
    finishReason: mapStopReason(root.stop_reason),
    usage: {
      prompt_tokens: prompt,
      completion_tokens: count(usage?.output_tokens),
      ...(typeof cacheRead === "number" && Number.isInteger(cacheRead) && cacheRead >= 0
        ? { cached_tokens: cacheRead }
        : {}),
    },
  };
}
