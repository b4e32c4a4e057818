import type { ChatMessage, ContentPart, ToolSpec } from "./types.js";

/** One content block of the Anthropic Messages API, as JSON. */
export type AnthropicBlock = Record<string, unknown>;

export interface AnthropicTurn {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** The conversation part of a Messages request: `system`, `messages`, and `tools` when offered. */
export interface AnthropicConversation {
  system?: string;
  messages: AnthropicTurn[];
  tools?: AnthropicBlock[];
}

/** A message that cannot be expressed in the Anthropic format (the query fails as `fatal`). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(`cannot convert the conversation for the Anthropic API: ${message}`);
    this.name = "ConversionError";
  }
}

/** Image URL → image block: `data:<type>;base64,<data>` becomes a base64 source, http(s) a url source. */
export function imageBlock(url: string): AnthropicBlock {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  throw new ConversionError(
    `an image_url must be a base64 data URL or an http(s) URL; received "${url.slice(0, 60)}"`,
  );
}

function partsToBlocks(content: string | ContentPart[] | null): AnthropicBlock[] {
  if (content === null || content === "") return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.flatMap((part): AnthropicBlock[] => {
    if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
    return [imageBlock(part.image_url.url)];
  });
}

function textOf(content: string | ContentPart[] | null): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .filter((p): p is Extract<ContentPart, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("");
}

/** Tool-call arguments as the object Anthropic wants; text that is not a JSON object is kept under a key. */
function toolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // fall through
  }
  return { unparsed_arguments: args };
}

function turnOf(m: ChatMessage, withThinking: boolean): AnthropicTurn {
  if (m.role === "assistant") {
    const text = textOf(m.content);
    const blocks: AnthropicBlock[] = withThinking ? [...(m.thinking_blocks ?? [])] : [];
    if (text !== "") blocks.push({ type: "text", text });
    for (const call of m.tool_calls ?? []) {
      blocks.push({
        type: "tool_use",
        id: call.id,
        name: call.function.name,
        input: toolInput(call.function.arguments),
      });
    }
    return { role: "assistant", content: blocks };
  }
  if (m.role === "tool") {
    if (!m.tool_call_id) throw new ConversionError("a tool message has no tool_call_id");
    const content = typeof m.content === "string" ? m.content : partsToBlocks(m.content);
    return { role: "user", content: [{ type: "tool_result", tool_use_id: m.tool_call_id, content }] };
  }
  return { role: "user", content: partsToBlocks(m.content) };
}

/**
 * Converts OpenAI-shaped messages: system messages join into `system`; assistant tool calls become
 * `tool_use` blocks; tool messages become `tool_result` blocks in a user turn; image parts become
 * image blocks; consecutive turns of one role merge (Anthropic wants them alternating). A turn
 * left without content gets the text "(empty)", since the API rejects empty turns. An assistant
 * message `withThinking[i]` starts with its thinking blocks, unchanged (the history policy says
 * which, reasoning-chain.ts).
 */
export function toAnthropicConversation(
  messages: ChatMessage[],
  tools?: ToolSpec[],
  withThinking: readonly boolean[] = [],
): AnthropicConversation {
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .filter((t) => t !== "");
  const turns: AnthropicTurn[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === "system") continue;
    const turn = turnOf(m, withThinking[i] === true);
    const last = turns[turns.length - 1];
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else turns.push(turn);
  }
  for (const turn of turns) {
    if (turn.content.length === 0) turn.content.push({ type: "text", text: "(empty)" });
  }
  const conversation: AnthropicConversation = { messages: turns };
  if (system.length > 0) conversation.system = system.join("\n\n");
  if (tools && tools.length > 0) {
    conversation.tools = tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
  }
  return conversation;
}
