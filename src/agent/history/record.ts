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
    ? Math.min(previousPromptTokens, usage.prompt_tokens)
    : view.chars > 0
      ? Math.floor((usage.prompt_tokens * view.sharedChars) / view.chars)
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

/** Adds how the request was laid out (above) to a reply's `extra` as `request`. */
export function recordRequest(reply: ChatMessage, request: RequestRecord): void {
  reply.extra = { ...reply.extra, request };
}
