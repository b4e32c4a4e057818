import type { Sleep } from "./retry.js";

/** What a model client takes from its surroundings (all injectable for tests). */
export interface ClientDeps {
  /** Warnings for the user (unknown prices, ...). */
  warn: (msg: string) => void;
  /** Environment variables (API keys, base URLs). */
  env: NodeJS.ProcessEnv;
  /** Waits between retries. */
  sleep: Sleep;
  /** Jitter source, a number in [0, 1). */
  random: () => number;
}

/** Model kwargs that mini-swe-agent passes to litellm only; never sent to a server. */
const LITELLM_ONLY = new Set(["drop_params"]);

/**
 * `model.model_kwargs` as sent: everything unchanged except litellm-only keys. Throws on
 * `stream: true` (patchloop sends non-streaming requests and would not understand the reply).
 */
export function requestKwargs(kwargs: Record<string, unknown>, label: string): Record<string, unknown> {
  if (kwargs.stream) {
    throw new Error(
      `${label}: model.model_kwargs.stream is true, but patchloop sends non-streaming requests; remove it`,
    );
  }
  return Object.fromEntries(Object.entries(kwargs).filter(([k]) => !LITELLM_ONLY.has(k)));
}

/** `model.request_timeout` (seconds) as the whole milliseconds of a try's timer, at least 1. */
export function timeoutMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}
