import type { AgentEvent } from "../../agent/agent.js";

/** Model usage carried by one agent event (a `model_call` event is one call). */
export interface CallUsage {
  calls: number;
  cost: number;
  promptTokens: number;
  completionTokens: number;
}

/** The usage an agent event reports: one call with its cost and tokens for `model_call`, else null. */
export function usageOf(event: AgentEvent): CallUsage | null {
  if (event.type !== "model_call") return null;
  return {
    calls: 1,
    cost: event.cost,
    promptTokens: event.usage.promptTokens,
    completionTokens: event.usage.completionTokens,
  };
}
