import { describe, expect, it } from "vitest";
import { BatchBudget } from "../../src/batch/budget.js";

describe("the batch caps count calls as reported, then what an outcome adds", () => {
  const call = { api_calls: 1, prompt_tokens: 100, completion_tokens: 10, cost: 1 };

  it("starts from what earlier runs spent and stops at the call cap", () => {
    const budget = new BatchBudget({ callLimit: 4 }, { api_calls: 2, cost: 3 });
    expect(budget.total).toEqual({ api_calls: 2, prompt_tokens: 0, completion_tokens: 0, cost: 3 });
    budget.add(call, "a");
    expect(budget.exhausted()).toBeNull();
    budget.add(call, "a");
    expect(budget.exhausted()).toBe("call_limit");
  });

  it("settling an instance adds only what its events did not report, and takes nothing back", () => {
    const budget = new BatchBudget({ costLimit: 10 });
    budget.add(call, "a");
    budget.add(call, "a");
    // Its outcome holds 3 calls costing $2.50: one call more than reported, and less cost.
    budget.settle("a", { api_calls: 3, prompt_tokens: 250, completion_tokens: 30, cost: 2.5 });
    expect(budget.total).toEqual({ api_calls: 3, prompt_tokens: 250, completion_tokens: 30, cost: 2.5 });
    // An instance whose events were all lost counts in full when it ends.
    budget.settle("b", { api_calls: 5, prompt_tokens: 0, completion_tokens: 0, cost: 8 });
    expect(budget.total.cost).toBe(10.5);
    expect(budget.exhausted()).toBe("cost_limit");
  });
});
