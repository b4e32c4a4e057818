import { REASONING_FAMILIES, type ReasoningFamily } from "../config/reasoning-families.js";
import type { ChatMessage } from "./types.js";

/**
 * Which earlier reasoning goes back to the server (`model.reasoning_history`): none (`drop`), all
 * (`keep`), or the current tool-call chain's (`chain`), as the model family's chat template keeps
 * it (`model.family`). The rules, each read from the family's published template
 * (test/fixtures/chat-templates/, docs/models.md), come in two kinds:
 *
 * - `user`: the chain starts after the last user message (Qwen3, Gemma 4, GLM, MiniMax-M2,
 *   DeepSeek V4, whose API answers 400 when the chain's reasoning_content is missing, and Claude, whose API needs the thinking blocks of the current tool-use turn back).
 * - `final`: the chain starts after the last assistant message without tool calls, the model's
 *   last final answer; a user message does not end it (gpt-oss, Kimi-K2-Thinking).
 *
 * `toolCallsOnly`: only assistant messages with tool calls keep their reasoning inside the chain.
 */
export { REASONING_FAMILIES, type ReasoningFamily } from "../config/reasoning-families.js";

export type ReasoningHistory = "drop" | "keep" | "chain";

interface ChainRule {
  since: "user" | "final";
  toolCallsOnly: boolean;
}

const RULES: Record<ReasoningFamily, ChainRule> = {
  qwen3: { since: "user", toolCallsOnly: false },
  gemma4: { since: "user", toolCallsOnly: true },
  glm: { since: "user", toolCallsOnly: false },
  minimax_m2: { since: "user", toolCallsOnly: false },
  deepseek_v4: { since: "user", toolCallsOnly: false },
  claude: { since: "user", toolCallsOnly: false },
  gpt_oss: { since: "final", toolCallsOnly: true },
  kimi_k2: { since: "final", toolCallsOnly: true },
};

const hasToolCalls = (m: ChatMessage): boolean => (m.tool_calls?.length ?? 0) > 0;

/**
 * Whether a user message starts a new query. Qwen3's template counts a user message wrapped whole
 * in `<tool_response>...</tool_response>` as a tool result, not a query; patchloop never sends one,
 * but a hostile observation could look like it, so the rule is the template's own.
 */
function isQuery(m: ChatMessage, family: ReasoningFamily): boolean {
  if (m.role !== "user") return false;
  if (family !== "qwen3" || typeof m.content !== "string") return true;
  return !(m.content.startsWith("<tool_response>") && m.content.endsWith("</tool_response>"));
}

/** Index of the last message before the chain (-1: the chain is every message). */
function chainStart(messages: readonly ChatMessage[], family: ReasoningFamily): number {
  const { since } = RULES[family];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (since === "user" ? isQuery(m, family) : m.role === "assistant" && !hasToolCalls(m)) return i;
  }
  return -1;
}

/**
 * The policy as a function of a request's messages: for each, whether its reasoning is sent back
 * (only assistant messages with reasoning ever are). Throws for `chain` without a family (the
 * config schema refuses that before a client is made).
 */
export function reasoningPolicy(
  history: ReasoningHistory,
  /** `none`: no family (set so that none is taken from the model's name). */
  family: ReasoningFamily | "none" | null,
): (messages: readonly ChatMessage[]) => boolean[] {
  const has = (m: ChatMessage): boolean =>
    m.role === "assistant" && (typeof m.reasoning === "string" || (m.thinking_blocks?.length ?? 0) > 0);
  if (history !== "chain") return (messages) => messages.map((m) => history === "keep" && has(m));
  if (family === null || family === "none")
    throw new Error(
      `model.reasoning_history is chain but model.family is ${family}: set model.family to one of ${REASONING_FAMILIES.join(", ")} (docs/models.md), or use keep or drop`,
    );
  const { toolCallsOnly } = RULES[family];
  return (messages) => {
    const start = chainStart(messages, family);
    return messages.map((m, i) => i > start && has(m) && (!toolCallsOnly || hasToolCalls(m)));
  };
}
