import { type ModelStats, NO_STATS, StatsTally } from "../agent/model-stats.js";
import type { StopReason } from "./types.js";

/**
 * The batch-wide caps: once the model calls or the cost (USD) of all instances reach a cap, no new
 * instance starts; running ones finish. A cap of 0 or undefined is no cap. Calls are counted as
 * they are reported (`add`, per instance); when an instance's result arrives, `settle` adds what
 * its totals hold beyond what was counted (reports lost on the way from a remote worker). What was
 * counted is never taken back: calls of an attempt whose worker died were paid for all the same.
 */
export class BatchBudget {
  private readonly tally: StatsTally;

  constructor(
    private readonly limits: { costLimit?: number; callLimit?: number },
    before: Pick<ModelStats, "api_calls" | "cost"> = NO_STATS,
  ) {
    this.tally = new StatsTally({ ...NO_STATS, api_calls: before.api_calls, cost: before.cost });
  }

  /** Everything counted so far, earlier runs of the folder included. */
  get total(): Readonly<ModelStats> {
    return this.tally.total;
  }

  /** Counts calls made (for `instanceId`, when given, so that `settle` can correct them). */
  add(calls: Readonly<ModelStats>, instanceId?: string): void {
    this.tally.add(calls, instanceId);
  }

  /** An instance ended having made `all` (its outcome's totals). */
  settle(instanceId: string, all: Readonly<ModelStats>): void {
    this.tally.settle(instanceId, all);
  }

  /** Which cap is reached, if any. */
  exhausted(): Exclude<StopReason, "interrupted" | null> | null {
    const { costLimit, callLimit } = this.limits;
    const spent = this.tally.total;
    if (costLimit && costLimit > 0 && spent.cost >= costLimit) return "cost_limit";
    if (callLimit && callLimit > 0 && spent.api_calls >= callLimit) return "call_limit";
    return null;
  }
}
