import type { ChatMessage, RequestRecord, Usage } from "../../models/types.js";
import type { RequestView } from "./types.js";

export type { RequestRecord };

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
  if (usage.cachedTokens !== undefined && extra.usage) extra.usage.cached_tokens = usage.cachedTokens;
  extra.request = request;
  reply.extra = extra;
}
