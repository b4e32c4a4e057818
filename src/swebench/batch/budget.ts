import type { StopReason } from "./types.js";

/**
 * The batch-wide caps: once the model calls or the cost (USD) of all instances reach a cap, no new
 * instance starts; running ones finish. A cap of 0 or undefined is no cap. Calls are counted as
 * they are reported (`add`, per instance); when an instance's result arrives, `settle` adds what
 * its totals hold beyond what was counted (reports lost on the way from a remote worker). What was
 * counted is never taken back: calls of an attempt whose worker died were paid for all the same.
 */
export class BatchBudget {
  calls = 0;
  cost = 0;
  private readonly counted = new Map<string, { calls: number; cost: number }>();

  constructor(
    private readonly limits: { costLimit?: number; callLimit?: number },
    spent: { calls: number; cost: number } = { calls: 0, cost: 0 },
  ) {
    this.calls = spent.calls;
    this.cost = spent.cost;
  }

  /** Counts calls made (for `instanceId`, when given, so that `settle` can correct them). */
  add(calls: number, cost: number, instanceId?: string): void {
    this.calls += calls;
    this.cost += cost;
    if (instanceId === undefined) return;
    const c = this.counted.get(instanceId) ?? { calls: 0, cost: 0 };
    c.calls += calls;
    c.cost += cost;
    this.counted.set(instanceId, c);
  }

  /** An instance ended having made `calls` calls costing `cost` in all. */
  settle(instanceId: string, calls: number, cost: number): void {
    const c = this.counted.get(instanceId) ?? { calls: 0, cost: 0 };
    this.counted.delete(instanceId);
    this.calls += Math.max(0, calls - c.calls);
    this.cost += Math.max(0, cost - c.cost);
  }

  /** Which cap is reached, if any. */
  exhausted(): Exclude<StopReason, "interrupted" | null> | null {
    const { costLimit, callLimit } = this.limits;
    if (costLimit && costLimit > 0 && this.cost >= costLimit) return "cost_limit";
    if (callLimit && callLimit > 0 && this.calls >= callLimit) return "call_limit";
    return null;
  }
}
