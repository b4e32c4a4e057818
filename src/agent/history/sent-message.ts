import type { ChatMessage } from "../../models/types.js";

/**
 * A recorded message as a model is sent it: without `extra` (patchloop's bookkeeping). Each
 * recorded message maps to one object, made once, so that requests share unchanged messages by
 * identity (a client can then reuse what it made of them) and a view costs no copy per step.
 */
const sent = new WeakMap<ChatMessage, ChatMessage>();

export function sentMessage(m: ChatMessage): ChatMessage {
  let out = sent.get(m);
  if (!out) {
    const { extra: _, ...rest } = m;
    out = rest;
    sent.set(m, out);
  }
  return out;
}

/** The text of a message's content: a string as is, text parts joined by newlines. */
export function contentText(m: ChatMessage): string {
  if (typeof m.content === "string") return m.content;
  if (!Array.isArray(m.content)) return "";
  return m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

const sizes = new WeakMap<ChatMessage, number>();

/** Characters a message contributes to a prompt: its content, reasoning and tool-call arguments. */
export function messageChars(m: ChatMessage): number {
  let n = sizes.get(m);
  if (n === undefined) {
    n = 0;
    if (typeof m.content === "string") n += m.content.length;
    else if (Array.isArray(m.content))
      for (const p of m.content) n += p.type === "text" ? p.text.length : p.image_url.url.length;
    if (m.reasoning) n += m.reasoning.length;
    for (const c of m.tool_calls ?? []) n += c.function.name.length + c.function.arguments.length;
    sizes.set(m, n);
  }
  return n;
}
