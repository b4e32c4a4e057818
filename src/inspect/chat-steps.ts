import {
  actionsFromExtra,
  actionsFromToolCalls,
  fencedCommands,
  thoughtWithoutActions,
} from "./chat-actions.js";
import { asNumber, asRecord, asString, contentText, type JsonRecord } from "./json-read.js";
import { type ObservationView, type PromptView, promptView, type StepView } from "./view/view-model.js";

/** A chat transcript split into the prompts before the first reply and one step per reply. */
export interface ChatSplit {
  system: PromptView | null;
  firstUser: PromptView | null;
  preamble: PromptView[];
  steps: StepView[];
  /** `extra` of a closing `role: "exit"` message (mini-swe-agent 2), if any. */
  exitExtra: JsonRecord | null;
}

const RETURNCODE_TAG = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const TIMEOUT_TEXT = /timed out and has been killed/i;

function observation(msg: JsonRecord, stepHadActions: boolean): ObservationView {
  const text = contentText(msg.content);
  const extra = asRecord(msg.extra);
  const tagged = RETURNCODE_TAG.exec(text);
  const returncode = asNumber(extra?.returncode) ?? (tagged ? Number(tagged[1]) : null);
  const interrupt = asString(extra?.interrupt_type);
  const timedOut =
    extra?.timed_out === true || /timeout/i.test(interrupt ?? "") || (!extra && TIMEOUT_TEXT.test(text));
  const formatError =
    extra?.format_error === true ||
    interrupt === "FormatError" ||
    (!extra && !stepHadActions && returncode === null);
  return { text, returncode, timedOut, formatError };
}

function usageOf(extra: JsonRecord | null): JsonRecord | null {
  return asRecord(extra?.usage) ?? asRecord(asRecord(extra?.response)?.usage);
}

function finishReasonOf(extra: JsonRecord | null): string | null {
  const direct = asString(extra?.finish_reason);
  if (direct !== null) return direct;
  const choices = asRecord(extra?.response)?.choices;
  return Array.isArray(choices) ? asString(asRecord(choices[0])?.finish_reason) : null;
}

function step(index: number, msg: JsonRecord): StepView {
  const extra = asRecord(msg.extra);
  const content = contentText(msg.content);
  const actions =
    actionsFromExtra(extra?.actions) ??
    (Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0
      ? actionsFromToolCalls(msg.tool_calls)
      : fencedCommands(content).map((text) => ({ tool: null, text })));
  const usage = usageOf(extra);
  const reasoning = asString(msg.reasoning) ?? asString(msg.reasoning_content);
  // patchloop's usage.cached_tokens, an OpenAI-style raw usage, or Anthropic's cache reads
  const cached =
    asNumber(usage?.cached_tokens) ??
    asNumber(asRecord(usage?.prompt_tokens_details)?.cached_tokens) ??
    asNumber(usage?.cache_read_input_tokens);
  const shared = asNumber(asRecord(extra?.request)?.shared_tokens);
  return {
    index,
    ...(reasoning ? { reasoning } : {}),
    ...(cached !== null ? { cached_tokens: cached } : {}),
    ...(shared !== null ? { sharedPrefixTokens: shared } : {}),
    thought: thoughtWithoutActions(
      content,
      actions.map((a) => a.text),
    ),
    actions,
    observations: [],
    prompt_tokens: asNumber(usage?.prompt_tokens) ?? asNumber(usage?.input_tokens),
    completion_tokens: asNumber(usage?.completion_tokens) ?? asNumber(usage?.output_tokens),
    cost: asNumber(extra?.cost),
    finishReason: finishReasonOf(extra),
  };
}

/** Splits OpenAI-shaped chat messages (patchloop, mini-swe-agent) into prompts and steps. */
export function splitChat(messages: JsonRecord[]): ChatSplit {
  const split: ChatSplit = { system: null, firstUser: null, preamble: [], steps: [], exitExtra: null };
  for (const msg of messages) {
    const role = asString(msg.role) ?? "(no role)";
    const text = contentText(msg.content);
    const current = split.steps.at(-1);
    if (role === "exit") {
      split.exitExtra = asRecord(msg.extra) ?? {};
    } else if (role === "assistant") {
      split.steps.push(step(split.steps.length + 1, msg));
    } else if (current) {
      current.observations.push(observation(msg, current.actions.length > 0));
    } else if (role === "system" && !split.system && !split.firstUser) {
      split.system = promptView(role, text);
    } else if (role === "user" && !split.firstUser) {
      split.firstUser = promptView(role, text);
    } else {
      split.preamble.push(promptView(role, text));
    }
  }
  return split;
}
