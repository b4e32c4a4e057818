import { addStats, beyond, type ModelStats, NO_STATS } from "../../agent/model-stats.js";
import type { StopReason } from "./types.js";

/**
 * The batch-wide caps: once the model calls or the cost (USD) of all instances reach a cap, no new
 * instance starts; running ones finish. A cap of 0 or undefined is no cap. Calls are counted as
 * they are reported (`add`, per instance); when an instance's result arrives, `settle` adds what
 * its totals hold beyond what was counted (reports lost on the way from a remote worker). What was
 * counted is never taken back: calls of an attempt whose worker died were paid for all the same.
 */
export class BatchBudget {
  private spent: ModelStats;
  private readonly counted = new Map<string, ModelStats>();

  constructor(
    private readonly limits: { costLimit?: number; callLimit?: number },
    before: Pick<ModelStats, "api_calls" | "cost"> = NO_STATS,
  ) {
    this.spent = { ...NO_STATS, api_calls: before.api_calls, cost: before.cost };
  }

  /** Everything counted so far, earlier runs of the folder included. */
  get total(): Readonly<ModelStats> {
    return this.spent;
  }

  /** Counts calls made (for `instanceId`, when given, so that `settle` can correct them). */
  add(calls: Readonly<ModelStats>, instanceId?: string): void {
    this.spent = addStats(this.spent, calls);
    if (instanceId === undefined) return;
    this.counted.set(instanceId, addStats(this.counted.get(instanceId) ?? NO_STATS, calls));
  }

  /** An instance ended having made `all` (its outcome's totals). */
  settle(instanceId: string, all: Readonly<ModelStats>): void {
    const counted = this.counted.get(instanceId) ?? NO_STATS;
    this.counted.delete(instanceId);
    this.spent = addStats(this.spent, beyond(all, counted));
  }

  /** Which cap is reached, if any. */
  exhausted(): Exclude<StopReason, "interrupted" | null> | null {
    const { costLimit, callLimit } = this.limits;
    if (costLimit && costLimit > 0 && this.spent.cost >= costLimit) return "cost_limit";
    if (callLimit && callLimit > 0 && this.spent.api_calls >= callLimit) return "call_limit";
    return null;
  }
}
