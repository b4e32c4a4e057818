import type { ModelStats } from "../agent/model-stats.js";
import type { ExitStatus } from "../agent/trajectory-types.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { needsRun, type PriorState } from "../run-folder/resume.js";
import type { TaskOutcome } from "../task/outcome.js";
import { InstanceAttempts } from "./attempt-policy.js";
import type { InstanceRecord } from "./run-record.js";
import { unitKey, type WorkUnit } from "./types.js";

/*
 * The run folder's plan, as pure functions over what earlier runs left (the units' prior states,
 * read from their trajectories, and run.json's records): which units run now and in which order,
 * which are kept, what the folder spent, when a ModelError is final. RunFolder (run-folder.ts)
 * reads the files, asks this, and applies the answer.
 */

/**
 * Instances in a row that end with `ModelError` after the model server kept failing (retries
 * exhausted) before the batch stops starting new ones: the server is down, and every further
 * instance would only wait out its retries. A re-run of the same command runs them again.
 */
export const OUTAGE_LIMIT = 3;

/**
 * Runs in a row in which an instance may end with `ModelError` after its retries ran out (the
 * server failing on it) before that result is taken as final: a request the server fails on every
 * time (a 500 from a tool-call parser, a reply that is never valid JSON) must not keep a batch from
 * finishing, run after run.
 */
export const MAX_OUTAGE_RUNS = 3;

/** What earlier attempts of an instance spent, from its run.json record (`earlier_calls`, `earlier_cost`). */
export function earlierSpend(record: InstanceRecord | undefined): { calls: number; cost: number } {
  return { calls: Number(record?.earlier_calls) || 0, cost: Number(record?.earlier_cost) || 0 };
}

/** How many runs in a row ended with this instance's server failing, from its run.json record. */
export function outageRuns(record: InstanceRecord | undefined): number {
  const n = record?.model_error_runs;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}

/** The attempt that replaces a failed one, from its run.json record (`replaced_by`). */
export function replacedBy(record: InstanceRecord | undefined): number | undefined {
  const k = record?.replaced_by;
  return typeof k === "number" && Number.isInteger(k) && k > 0 ? k : undefined;
}

export const isOutage = (o: Pick<TaskOutcome, "exit_status" | "model_error">) =>
  o.exit_status === "ModelError" && o.model_error?.kind === "retries_exhausted";

/** What planning a run gives. */
export interface Plan {
  todo: WorkUnit[];
  skipped: string[];
  spent: Pick<ModelStats, "api_calls" | "cost">;
  perInstance: Map<string, InstanceAttempts>;
  /** With attempts: the selected instances' attempts with a final status that do not run now, by unit key. */
  keptAttempts: Record<string, ExitStatus>;
  /** Lines for run.log about the plan (a ModelError made final). */
  notes: string[];
}

/** What planning needs: the selected rows and their units, what earlier runs left, the settings. */
export interface PlanInput {
  /** The selected rows, in the order given. */
  instances: SwebenchInstance[];
  /** Every unit of the rows (unitsOf): instances, or their attempts. */
  units: WorkUnit[];
  /** Each unit's prior state by unit key (its trajectory as an earlier run left it). */
  priors: Map<string, PriorState>;
  /** run.json's records by unit key: the instances', or with attempts the attempts'. */
  records: Record<string, InstanceRecord>;
  /** `run.attempts`. */
  attempts: number;
  policy: Config["run"]["attempt_policy"];
  /** `--redo-existing`: final statuses run again too. */
  redo: boolean;
}

/**
 * Splits the selection: final statuses are kept; the others run, those that never ran first and
 * those that ended badly before after them, so that instances failing on every try cannot hold up
 * fresh ones (an instance's attempts stay together, in order). A ModelError whose server failed in
 * MAX_OUTAGE_RUNS runs in a row becomes final. The caps count everything the folder spent: the
 * selected units' trajectories (their latest run), run.json's record of the others, and what
 * units run again spent (`earlier_*`). Pure: it reads nothing and writes nothing; what it has to say
 * (an outage made final) comes back as `notes` for run.log.
 */
export function planRun(input: PlanInput): Plan {
  const { redo, attempts, policy, records } = input;
  const multi = attempts > 1;
  const notes: string[] = [];
  const perInstance = new Map<string, InstanceAttempts>();
  const kept: Record<string, ExitStatus> = {};
  const runs = new Map<string, WorkUnit[]>();
  const add = (u: WorkUnit) => runs.set(u.row.instance_id, [...(runs.get(u.row.instance_id) ?? []), u]);
  for (const u of input.units) {
    const id = u.row.instance_id;
    const key = unitKey(id, u.attempt);
    const prior = input.priors.get(key) as PriorState;
    let tries = perInstance.get(id);
    if (multi && !tries) {
      tries = new InstanceAttempts(id, attempts, policy);
      perInstance.set(id, tries);
    }
    if (!needsRun(prior, redo)) {
      tries?.end(endedOf(u.attempt ?? 1, prior));
      if (prior.status) kept[key] = prior.status;
      continue;
    }
    // A failure that a replacement covers (run.json `replaced_by`) is final: its replacement runs.
    if (tries && !redo && prior.status && replacedBy(records[key]) !== undefined) {
      tries.end(endedOf(u.attempt ?? 1, prior));
      kept[key] = prior.status;
      continue;
    }
    if (!redo && isOutageFinal(prior, records[key])) {
      tries?.end(endedOf(u.attempt ?? 1, prior));
      if (prior.status) kept[key] = prior.status;
      notes.push(
        `${key}: the model server failed on it in ${MAX_OUTAGE_RUNS} runs in a row; its ModelError is now final ` +
          "(--redo-existing runs it again)",
      );
      continue;
    }
    add(u);
  }
  const fresh: WorkUnit[] = [];
  const again: WorkUnit[] = [];
  const skipped: string[] = [];
  for (const row of input.instances) {
    const id = row.instance_id;
    const tries = perInstance.get(id);
    // Replacements for attempts that failed in earlier runs, not started yet.
    for (const k of tries?.replacements() ?? [])
      if (!input.priors.has(unitKey(id, k))) add({ row, attempt: k });
    const todo = (runs.get(id) ?? []).filter((u) => !tries || tries.mayStart(u.attempt ?? 1));
    if (todo.length === 0) {
      skipped.push(id);
      continue;
    }
    const neverRan = todo.every((u) => (input.priors.get(unitKey(id, u.attempt))?.status ?? null) === null);
    (neverRan ? fresh : again).push(...todo);
  }
  const spent = { api_calls: 0, cost: 0 };
  for (const p of input.priors.values()) {
    spent.api_calls += p.stats.api_calls;
    spent.cost += p.stats.cost;
  }
  for (const [key, r] of Object.entries(records)) {
    const e = earlierSpend(r);
    spent.api_calls += e.calls;
    spent.cost += e.cost;
    if (input.priors.has(key)) continue;
    spent.api_calls += Number(r.api_calls) || 0;
    spent.cost += Number(r.cost) || 0;
  }
  // An instance's attempts that do not run now are kept, whether or not the instance runs.
  const keptAttempts = multi ? kept : {};
  return { todo: [...fresh, ...again], skipped, spent, perInstance, keptAttempts, notes };
}

/** An earlier run's attempt as the attempt policy sees it. */
export function endedOf(attempt: number, prior: PriorState) {
  return {
    attempt,
    exit_status: prior.status as ExitStatus,
    patch: prior.submission,
    cost: prior.stats.cost,
    again: false,
  };
}

/** A unit's prior state from the result this run recorded. */
export function priorOf(outcome: TaskOutcome): PriorState {
  return {
    status: outcome.exit_status,
    submission: outcome.patch,
    stats: {
      api_calls: outcome.api_calls,
      prompt_tokens: outcome.prompt_tokens,
      completion_tokens: outcome.completion_tokens,
      cost: outcome.cost,
    },
    ...(outcome.model_error ? { modelError: outcome.model_error } : {}),
  };
}

/** Whether an instance's ModelError has come back often enough in a row to be final. */
export function isOutageFinal(prior: PriorState, record: InstanceRecord | undefined): boolean {
  return (
    prior.status === "ModelError" &&
    prior.modelError?.kind === "retries_exhausted" &&
    outageRuns(record) >= MAX_OUTAGE_RUNS
  );
}
