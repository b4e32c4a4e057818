import type { AgentEvent } from "../agent/agent.js";
import { type ModelStats, oneCall } from "../agent/model-stats.js";

/** The usage an agent event reports: one call with its tokens and cost for `model_call`, else null. */
export function usageOf(event: AgentEvent): ModelStats | null {
  return event.type === "model_call" ? oneCall(event.usage, event.cost) : null;
}
