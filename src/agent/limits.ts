import type { AgentConfig } from "../config/schema.js";
import type { ExitStatus, ModelErrorInfo } from "./trajectory-types.js";

/** What the limits look at. */
export interface Progress {
  /** Model calls made. */
  steps: number;
  cost: number;
  elapsedSeconds: number;
  /** Prompt tokens of the latest call. */
  lastPromptTokens: number;
}

export interface LimitHit {
  status: ExitStatus;
  message: string;
  /** Which limit of the config was reached (set by the stop conditions below). */
  limit?: "steps" | "cost" | "time" | "context";
  /** Set when the model client failed (ModelError): what kind of failure, and the HTTP status if any. */
  modelError?: ModelErrorInfo;
}

/** A stop condition: returns why to stop, or null to go on. Composable: the loop checks each in turn. */
export type StopCondition = (p: Progress) => LimitHit | null;

export function stepLimit(limit: number): StopCondition {
  return (p) =>
    limit > 0 && p.steps >= limit
      ? {
          status: "LimitsExceeded",
          limit: "steps",
          message: `step limit reached: ${p.steps} of ${limit} model calls used`,
        }
      : null;
}

export function costLimit(limit: number): StopCondition {
  return (p) =>
    limit > 0 && p.cost >= limit
      ? {
          status: "LimitsExceeded",
          limit: "cost",
          message: `cost limit reached: $${p.cost.toFixed(4)} of $${limit}`,
        }
      : null;
}

export function timeLimit(seconds: number): StopCondition {
  return (p) =>
    seconds > 0 && p.elapsedSeconds >= seconds
      ? {
          status: "TimeExceeded",
          limit: "time",
          message: `time limit reached: ${Math.round(p.elapsedSeconds)} s of ${seconds} s`,
        }
      : null;
}

export function contextLimit(tokens: number): StopCondition {
  return (p) =>
    tokens > 0 && p.lastPromptTokens >= tokens
      ? {
          status: "ContextExceeded",
          limit: "context",
          message: `context limit reached: the last prompt had ${p.lastPromptTokens} tokens, the limit is ${tokens}`,
        }
      : null;
}

/** The stop conditions a config asks for. */
export function limitsFor(agent: AgentConfig): StopCondition[] {
  return [
    stepLimit(agent.step_limit),
    costLimit(agent.cost_limit),
    timeLimit(agent.time_limit),
    contextLimit(agent.context_limit),
  ];
}
