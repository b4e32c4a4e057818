/**
 * A model's thinking, kept apart from its answer. Servers return it in one of three ways:
 * `reasoning` (vLLM 0.10+ and Ollama, OpenAI's guidance for chat completions), `reasoning_content`
 * (DeepSeek's name, used by SGLang, llama.cpp and older vLLM), or left inside the content as
 * `<think>...</think>` when the server runs no reasoning parser. Actions are parsed from the answer
 * only (docs/protocols.md).
 */

/** Where a reply carried its reasoning; the same place is used to send it back (`reasoning_history: keep`). */
export type ReasoningField = "reasoning" | "reasoning_content" | "think_tags";

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Splits `<think>...</think>` off the content. Handles: a block at the start (after whitespace);
 * a reply that starts inside the thinking (the chat template opened `<think>` in the prompt, as
 * Qwen3's does) and only closes it; and a block left open (cut off), which is all reasoning.
 * Text that mentions the tags later in the answer is left alone.
 */
export function splitThinking(content: string): { answer: string; reasoning: string | null } {
  const start = content.search(/\S/);
  if (start >= 0 && content.startsWith(OPEN, start)) {
    const from = start + OPEN.length;
    const end = content.indexOf(CLOSE, from);
    if (end < 0) return { answer: "", reasoning: content.slice(from).trim() };
    return {
      answer: content.slice(end + CLOSE.length).replace(/^\s*\n/, ""),
      reasoning: content.slice(from, end).trim(),
    };
  }
  const end = content.indexOf(CLOSE);
  if (end >= 0 && !content.slice(0, end).includes(OPEN)) {
    return {
      answer: content.slice(end + CLOSE.length).replace(/^\s*\n/, ""),
      reasoning: content.slice(0, end).trim(),
    };
  }
  return { answer: content, reasoning: null };
}

/** The reasoning text of a wire message and the field it came in (`reasoning` wins when both are set). */
export function wireReasoning(
  msg: Record<string, unknown>,
): { text: string; field: Exclude<ReasoningField, "think_tags"> } | null {
  for (const field of ["reasoning", "reasoning_content"] as const) {
    const value = msg[field];
    if (typeof value === "string" && value.trim() !== "") return { text: value, field };
  }
  return null;
}

/** The content of an assistant message as sent back with its reasoning in `<think>` tags. */
export function withThinkTags(reasoning: string, content: string): string {
  return `${OPEN}\n${reasoning}\n${CLOSE}\n\n${content}`;
}
