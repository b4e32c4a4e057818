import type { ExitStatus } from "../../agent/trajectory-types.js";
import type { BatchPlan } from "./plan.js";
import type { PriorState } from "./resume.js";
import type { InstanceOutcome } from "./types.js";

/**
 * Runs in a row in which an instance may end with `ModelError` after its retries ran out (the
 * server failing on it) before that result is taken as final: a request the server fails on every
 * time (a 500 from a tool-call parser, a reply that is never valid JSON) must not keep a batch from
 * finishing, run after run.
 */
export const MAX_OUTAGE_RUNS = 3;

/** How many runs in a row ended with this instance's server failing, from its run.json record. */
export function outageRuns(record: unknown): number {
  const n = (record as { model_error_runs?: unknown } | undefined)?.model_error_runs;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}

/** The `model_error_runs` to record for an outcome, given the instance's earlier record. */
export function nextOutageRuns(outcome: InstanceOutcome, earlier: unknown): number | undefined {
  const outage = outcome.exit_status === "ModelError" && outcome.model_error?.kind === "retries_exhausted";
  return outage ? outageRuns(earlier) + 1 : undefined;
}

/**
 * Arranges what runs now: instances that never ran come first and those that ended badly before
 * (Interrupted, EnvironmentError, ModelError after retries) after them, so that instances failing
 * on every try cannot hold up fresh ones; a ModelError whose server failed in MAX_OUTAGE_RUNS runs
 * in a row becomes final (moved to `skipped`) unless `redoExisting`. Returns the ids made final.
 */
export function arrangeTodo(
  plan: BatchPlan,
  records: Record<string, unknown>,
  redoExisting: boolean,
): string[] {
  const fresh = [];
  const again = [];
  const finalNow: string[] = [];
  for (const row of plan.todo) {
    const prior = plan.priors.get(row.instance_id) as PriorState;
    const id = row.instance_id;
    const capped =
      !redoExisting &&
      prior.status === "ModelError" &&
      prior.modelError?.kind === "retries_exhausted" &&
      outageRuns(records[id]) >= MAX_OUTAGE_RUNS;
    if (capped) {
      plan.skipped.push({ row, prior: prior as PriorState & { status: ExitStatus } });
      finalNow.push(id);
    } else if (prior.status === null) fresh.push(row);
    else again.push(row);
  }
  plan.todo = [...fresh, ...again];
  return finalNow;
}
