import type { HistoryConfig } from "../../config/schema.js";
import { StrictTemplate } from "../../config/template.js";
import type { ChatMessage } from "../../models/types.js";
import { contentText, messageChars, sentMessage } from "./sent-message.js";
import type { HistoryPolicy, RequestMoment, RequestView } from "./types.js";

/** The system and first user messages: never masked. */
const PROMPT_MESSAGES = 2;

/** Whether a recorded message is an observation (what an action or a rejected reply sent back). */
export function isObservation(recorded: readonly ChatMessage[], index: number): boolean {
  const role = recorded[index].role;
  return index >= PROMPT_MESSAGES && (role === "tool" || role === "user");
}

/** Variables of the placeholder template, with sample values (for checking it before a run). */
export const PLACEHOLDER_SAMPLE = { step: 3, chars: 12345, lines: 210, returncode: 0 };

/**
 * The layout of every request: which observations are shown whole and which as the placeholder.
 * Both policies are this one class: `full` never moves the boundary. With `mask_observations`,
 * at a block step (every `every` calls, or when the last prompt reached `threshold` of
 * `context_limit`) the boundary moves up to the oldest of the last `keep_last` observations, and
 * every observation before it is shown as the placeholder from then on. Between block steps the
 * boundary stays, so a request is the previous one plus what was added: the prefix a server cached
 * is reused. A masked message is made once and kept (same text at every later step).
 */
export class HistoryLayout implements HistoryPolicy {
  readonly name: string;
  private readonly placeholder: StrictTemplate;
  /** Observations at recorded indices below this are masked. */
  private boundary = PROMPT_MESSAGES;
  private lastBlockStep = 0;
  private previous: ChatMessage[] = [];
  private readonly masked = new WeakMap<ChatMessage, ChatMessage>();

  constructor(
    private readonly h: HistoryConfig,
    private readonly contextLimit: number,
  ) {
    this.name = h.policy;
    this.placeholder = new StrictTemplate(h.placeholder, "agent.history.placeholder");
    this.placeholder.render(PLACEHOLDER_SAMPLE); // a template error is a config error, before the run
  }

  private blockDue(at: RequestMoment): boolean {
    if (this.h.policy !== "mask_observations") return false;
    const { every, threshold } = this.h;
    if (every > 0 && at.step - this.lastBlockStep >= every) return true;
    return threshold > 0 && this.contextLimit > 0 && at.lastPromptTokens >= threshold * this.contextLimit;
  }

  /** The first observation of the last `keep_last` (observations before it get masked). */
  private nextBoundary(recorded: readonly ChatMessage[]): number {
    let kept = 0;
    for (let i = recorded.length - 1; i >= PROMPT_MESSAGES; i--) {
      if (!isObservation(recorded, i)) continue;
      if (kept === this.h.keep_last) return i + 1;
      kept++;
    }
    return PROMPT_MESSAGES;
  }

  /** The message shown instead of an observation; the observation itself when the note is not shorter. */
  private maskedMessage(m: ChatMessage): ChatMessage {
    const cached = this.masked.get(m);
    if (cached) return cached;
    const text = contentText(m);
    const extra = m.extra ?? {};
    const note = this.placeholder.render({
      step: typeof extra.step === "number" ? extra.step : null,
      chars: text.length,
      lines: text === "" ? 0 : text.split("\n").length,
      returncode: typeof extra.returncode === "number" ? extra.returncode : null,
    });
    const sent = sentMessage(m);
    const out = messageChars(sent) > note.length ? { ...sent, content: note } : sent;
    this.masked.set(m, out);
    return out;
  }

  view(recorded: readonly ChatMessage[], at: RequestMoment): RequestView {
    let maskedNow = false;
    if (this.blockDue(at)) {
      const next = this.nextBoundary(recorded);
      if (next > this.boundary) {
        this.boundary = next;
        maskedNow = true;
      }
      this.lastBlockStep = at.step;
    }
    const messages = new Array<ChatMessage>(recorded.length);
    let masked = 0;
    let chars = 0;
    let sharedChars = 0;
    let shared = 0;
    let sharing = true;
    const prev = this.previous;
    for (let i = 0; i < recorded.length; i++) {
      const m = recorded[i];
      let out: ChatMessage;
      if (i < this.boundary && isObservation(recorded, i)) {
        out = this.maskedMessage(m);
        if (out !== sentMessage(m)) masked++;
      } else out = sentMessage(m);
      messages[i] = out;
      const n = messageChars(out);
      chars += n;
      if (sharing && i < prev.length && prev[i] === out) {
        shared++;
        sharedChars += n;
      } else sharing = false;
    }
    const previousMessages = prev.length;
    this.previous = messages;
    return { messages, sharedMessages: shared, previousMessages, chars, sharedChars, masked, maskedNow };
  }
}

/** The policy `agent.history` names (`full` or `mask_observations`). */
export function createHistoryPolicy(h: HistoryConfig, contextLimit: number): HistoryPolicy {
  return new HistoryLayout(h, contextLimit);
}
