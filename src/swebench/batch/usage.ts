import type { AgentEvent } from "../../agent/agent.js";

/** Model usage carried by one agent event (an assistant message is one model call). */
export interface CallUsage {
  calls: number;
  cost: number;
  promptTokens: number;
  completionTokens: number;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The usage an agent event reports: one call with its cost and tokens for assistant messages, else null. */
export function usageOf(event: AgentEvent): CallUsage | null {
  if (event.type !== "message" || event.message.role !== "assistant") return null;
  const extra = event.message.extra ?? {};
  const usage = (extra.usage ?? {}) as Record<string, unknown>;
  return {
    calls: 1,
    cost: num(extra.cost),
    promptTokens: num(usage.prompt_tokens),
    completionTokens: num(usage.completion_tokens),
  };
}
