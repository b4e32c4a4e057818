import type { ActionConstraint, ChatMessage, ToolSpec } from "../../models/types.js";

/** One thing the model asked for. */
export type Action =
  /** tool_calls protocol: a call of a named tool with parsed arguments. */
  | { kind: "tool"; id: string; name: string; args: Record<string, unknown> }
  /** backticks protocol: the command text of the single fenced block. */
  | { kind: "command"; command: string };

/** A reply the protocol could not turn into actions. */
export interface FormatError {
  /** What was wrong and what was received, for the model and the person reading the trajectory. */
  error: string;
  /** tool_calls protocol: one tool message per call id, so the conversation stays valid for the API. */
  toolReplies?: Array<{ id: string; text: string }>;
  /** backticks protocol: the commands that were found (the format-error template's `actions`). */
  actions?: string[];
}

/**
 * What a reply asks for: its actions and its `thought` (the reply's text without the action: the
 * whole text with tool calls, the text outside the fenced block with backticks), or why it cannot run.
 */
export type ParseResult = { ok: true; actions: Action[]; thought: string } | ({ ok: false } & FormatError);

/** How actions are expressed in replies. */
export interface Protocol {
  readonly name: "tool_calls" | "backticks";
  /** Tools sent with every request (tool_calls only). */
  readonly toolSpecs?: ToolSpec[];
  parse(message: ChatMessage): ParseResult;
  /** The format a server can be asked to enforce (`model.constrain_actions`); none for mini-style action regexes. */
  readonly constraint?: ActionConstraint;
}

/** The text of a message's content (image parts dropped). */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  return message.content
    .map((p) => (p && p.type === "text" && typeof p.text === "string" ? p.text : ""))
    .join("");
}
