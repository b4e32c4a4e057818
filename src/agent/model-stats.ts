import type { Usage } from "../models/types.js";

/**
 * Model usage summed over calls: a trajectory's `info.model_stats` (contract: these names), a task's
 * outcome, a batch's totals, its caps and its progress. One call's usage is `Usage` (models/types.ts);
 * this module owns the arithmetic between the two.
 */
export interface ModelStats {
  api_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

/** No calls, no tokens, no cost. Frozen: copy it (`{ ...NO_STATS }`) to count into. */
export const NO_STATS: Readonly<ModelStats> = Object.freeze({
  api_calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost: 0,
});

/** The totals of one call that reported `usage` and cost `cost` (USD). */
export function oneCall(usage: Usage, cost: number): ModelStats {
  return {
    api_calls: 1,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    cost,
  };
}

/** `a` and `b` together. */
export function addStats(a: Readonly<ModelStats>, b: Readonly<ModelStats>): ModelStats {
  return {
    api_calls: a.api_calls + b.api_calls,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cost: a.cost + b.cost,
  };
}

/** `total` with one more call of `usage` costing `cost`. */
export function addCall(total: Readonly<ModelStats>, usage: Usage, cost: number): ModelStats {
  return addStats(total, oneCall(usage, cost));
}

/**
 * What `total` holds beyond what was `counted`, field by field, never below 0: what a task's final
 * totals add to the calls its events reported (reports lost on the way from a remote worker). What
 * was counted is never taken back.
 */
export function beyond(total: Readonly<ModelStats>, counted: Readonly<ModelStats>): ModelStats {
  return {
    api_calls: Math.max(0, total.api_calls - counted.api_calls),
    prompt_tokens: Math.max(0, total.prompt_tokens - counted.prompt_tokens),
    completion_tokens: Math.max(0, total.completion_tokens - counted.completion_tokens),
    cost: Math.max(0, total.cost - counted.cost),
  };
}

/** The sum of `all` (`NO_STATS` for none). */
export function sumStats(all: Iterable<Readonly<ModelStats>>): ModelStats {
  let total: ModelStats = { ...NO_STATS };
  for (const s of all) total = addStats(total, s);
  return total;
}

/**
 * Totals counted as calls are reported (`add`, per unit of work), then settled when a unit's own
 * totals arrive (`settle`): what those hold beyond what was counted for it is added (reports lost
 * on the way from a remote worker); what was counted is never taken back.
 */
export class StatsTally {
  private sum: ModelStats;
  private readonly counted = new Map<string, ModelStats>();

  constructor(start: Readonly<ModelStats> = NO_STATS) {
    this.sum = { ...start };
  }

  get total(): Readonly<ModelStats> {
    return this.sum;
  }

  /** Counts `stats` (for `key`, when given, so that `settle` can correct them). */
  add(stats: Readonly<ModelStats>, key?: string): void {
    this.sum = addStats(this.sum, stats);
    if (key !== undefined) this.counted.set(key, addStats(this.counted.get(key) ?? NO_STATS, stats));
  }

  /** The unit `key` ended with `all` in total. */
  settle(key: string, all: Readonly<ModelStats>): void {
    this.sum = addStats(this.sum, beyond(all, this.counted.get(key) ?? NO_STATS));
    this.counted.delete(key);
  }
}
