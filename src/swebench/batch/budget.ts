import type { StopReason } from "./types.js";

/**
 * The batch-wide caps: once the model calls or the cost (USD) of all instances reach a cap, no new
 * instance starts; running ones finish. A cap of 0 or undefined is no cap.
 */
export class BatchBudget {
  calls = 0;
  cost = 0;

  constructor(
    private readonly limits: { costLimit?: number; callLimit?: number },
    spent: { calls: number; cost: number } = { calls: 0, cost: 0 },
  ) {
    this.calls = spent.calls;
    this.cost = spent.cost;
  }

  add(calls: number, cost: number): void {
    this.calls += calls;
    this.cost += cost;
  }

  /** Which cap is reached, if any. */
  exhausted(): Exclude<StopReason, "interrupted" | null> | null {
    const { costLimit, callLimit } = this.limits;
    if (costLimit && costLimit > 0 && this.cost >= costLimit) return "cost_limit";
    if (callLimit && callLimit > 0 && this.calls >= callLimit) return "call_limit";
    return null;
  }
}
