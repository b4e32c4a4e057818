import { readFile } from "node:fs/promises";
import { withInfoFields } from "../agent/trajectory-schema.js";
import type { InfraRetry } from "../config/schema.js";
import type { Model } from "../models/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { TaskOutcome } from "./outcome.js";

/**
 * How a batch task is run again after an infrastructure failure (`run.infra_retry`): the policy,
 * and the wait between runs (injected in tests; default: a timer that an abort ends early).
 */
export interface InfraRetryPolicy extends InfraRetry {
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Waits `ms`, or less when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Milliseconds before retry `n` (1-based): `delay` doubled per earlier retry, at most `max_delay`. */
export function retryDelayMs(policy: InfraRetry, n: number): number {
  return Math.round(Math.min(policy.delay * 2 ** (n - 1), policy.max_delay) * 1000);
}

/** Whether the model has answered once: a model whose successful replies are counted. */
export interface WatchedModel {
  model: Model;
  replied(): boolean;
}

/** Wraps a model so that its first successful reply is seen (a failed query is not a reply). */
export function watchReplies(model: Model): WatchedModel {
  let replied = false;
  const watched: Model = {
    get name() {
      return model.name;
    },
    get vision() {
      return model.vision;
    },
    query: async (request) => {
      const result = await model.query(request);
      if (result.ok) replied = true;
      return result;
    },
  };
  return { model: watched, replied: () => replied };
}

/**
 * Whether a task's end was the infrastructure's doing rather than the model's: its environment
 * failed (would not open, or broke) or its model server kept failing (no connection, 5xx, 429, a
 * timeout: `retries_exhausted` after the client's own retries), and the model never replied. A
 * server that refused the request (`fatal`: 400, 401, 404), a full context, a limit or an abort
 * is not.
 */
export function isInfrastructureFailure(outcome: TaskOutcome, modelReplied: boolean): boolean {
  if (modelReplied) return false;
  if (outcome.exit_status === "EnvironmentError") return true;
  return outcome.exit_status === "ModelError" && outcome.model_error?.kind === "retries_exhausted";
}

/** The words the console and run.log use for an infrastructure failure or retries before a success. */
export function infraNote(o: Pick<TaskOutcome, "infra_retries" | "infrastructure">): string {
  const tries = (o.infra_retries ?? 0) + 1;
  if (o.infrastructure) return `infrastructure failure, ${tries} tr${tries === 1 ? "y" : "ies"}`;
  const n = o.infra_retries ?? 0;
  return n > 0 ? `after ${n} infrastructure retr${n === 1 ? "y" : "ies"}` : "";
}

/**
 * Records `infra_retries` and `infrastructure` in a saved trajectory's info (the file is whole
 * once the task ended: the journal of a long run is folded in by then). A file that is missing or
 * does not parse is left as it is.
 */
export async function markTrajectory(
  path: string,
  fields: Pick<TaskOutcome, "infra_retries" | "infrastructure">,
): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return;
  }
  const marked = withInfoFields(text, fields);
  if (marked === null) return;
  await writeFileAtomic(path, marked);
}
