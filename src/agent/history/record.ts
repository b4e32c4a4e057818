import type { ChatMessage, Usage } from "../../models/types.js";
import type { RequestView } from "./types.js";

/**
 * `extra.request` of an assistant message: how the request that produced it was laid out.
 * `shared_tokens` is patchloop's own count of the prefix shared with the previous request: the
 * previous call's prompt tokens when the whole previous request is a prefix of this one (the
 * append-only case), else this call's prompt tokens times the shared share of the characters (an
 * estimate: the loop runs no tokenizer; `patchloop tokens` counts exactly offline).
 */
export interface RequestRecord {
  policy: string;
  messages: number;
  shared_messages: number;
  /** The whole previous request is a prefix of this one. */
  shared_previous: boolean;
  shared_tokens: number;
  masked: number;
  /** This request moved the masking boundary (earlier messages changed). */
  block_step: boolean;
}

export function requestRecord(
  policy: string,
  view: RequestView,
  usage: Usage,
  previousPromptTokens: number,
): RequestRecord {
  const wholePrevious = view.previousMessages > 0 && view.sharedMessages === view.previousMessages;
  const shared = wholePrevious
    ? Math.min(previousPromptTokens, usage.promptTokens)
    : view.chars > 0
      ? Math.floor((usage.promptTokens * view.sharedChars) / view.chars)
      : 0;
  return {
    policy,
    messages: view.messages.length,
    shared_messages: view.sharedMessages,
    shared_previous: wholePrevious,
    shared_tokens: shared,
    masked: view.masked,
    block_step: view.maskedNow,
  };
}

/**
 * Adds the request's facts to a reply's `extra`: `request` (above) and, when the server reported
 * it, `usage.cached_tokens`.
 */
export function recordRequest(reply: ChatMessage, request: RequestRecord, usage: Usage): void {
  const extra = reply.extra ?? {};
  if (usage.cachedTokens !== undefined)
    extra.usage = { ...(extra.usage as Record<string, unknown>), cached_tokens: usage.cachedTokens };
  extra.request = request;
  reply.extra = extra;
}
