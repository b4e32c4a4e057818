import type { ChatMessage } from "../../models/types.js";

/** What the loop knows when it asks for the next request. */
export interface RequestMoment {
  /** The model call this request is for (1 = the first). */
  step: number;
  /** Prompt tokens the server reported for the previous call (0 before the first). */
  lastPromptTokens: number;
}

/** One request's messages as a policy laid them out, with how they relate to the previous request. */
export interface RequestView {
  /** The messages sent, without `extra`. */
  messages: ChatMessage[];
  /** Leading messages identical to the previous request's (all of them when nothing changed). */
  sharedMessages: number;
  /** Messages of the previous request (0 for the first). */
  previousMessages: number;
  /** Characters of the prompt (contents, reasoning, tool-call arguments) and of its shared prefix. */
  chars: number;
  sharedChars: number;
  /** Observations shown as a placeholder in this request. */
  masked: number;
  /** Whether this request moved the masking boundary (a block step). */
  maskedNow: boolean;
}

/** How the recorded history becomes each request (`agent.history`, docs/history.md). */
export interface HistoryPolicy {
  readonly name: string;
  view(recorded: readonly ChatMessage[], at: RequestMoment): RequestView;
}
