import { describe, expect, it } from "vitest";
import {
  addCall,
  addStats,
  beyond,
  NO_STATS,
  oneCall,
  StatsTally,
  sumStats,
} from "../../src/agent/model-stats.js";

describe("model stats: one call's usage summed into totals", () => {
  it("one call counts as one call with its prompt and completion tokens and its cost", () => {
    const usage = { prompt_tokens: 1500, completion_tokens: 20, reasoning_tokens: 7, cached_tokens: 1024 };
    expect(oneCall(usage, 0.25)).toEqual({
      api_calls: 1,
      prompt_tokens: 1500,
      completion_tokens: 20,
      cost: 0.25,
    });
    const two = addCall(addCall(NO_STATS, usage, 0.25), { prompt_tokens: 1600, completion_tokens: 30 }, 0.5);
    expect(two).toEqual({ api_calls: 2, prompt_tokens: 3100, completion_tokens: 50, cost: 0.75 });
  });

  it("adds totals and sums lists, leaving what it adds unchanged; NO_STATS cannot be counted into", () => {
    const a = { api_calls: 3, prompt_tokens: 1000, completion_tokens: 100, cost: 0.5 };
    const b = { api_calls: 1, prompt_tokens: 10, completion_tokens: 1, cost: 0.125 };
    expect(addStats(a, b)).toEqual({
      api_calls: 4,
      prompt_tokens: 1010,
      completion_tokens: 101,
      cost: 0.625,
    });
    expect(a).toEqual({ api_calls: 3, prompt_tokens: 1000, completion_tokens: 100, cost: 0.5 });
    expect(sumStats([a, b, b])).toEqual({
      api_calls: 5,
      prompt_tokens: 1020,
      completion_tokens: 102,
      cost: 0.75,
    });
    expect(sumStats([])).toEqual({ api_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 });
    expect(() => {
      (NO_STATS as { api_calls: number }).api_calls = 1;
    }).toThrow(TypeError);
  });

  it("what a total holds beyond what was counted, field by field, never below 0", () => {
    const total = { api_calls: 3, prompt_tokens: 1000, completion_tokens: 100, cost: 0.5 };
    const counted = { api_calls: 2, prompt_tokens: 3000, completion_tokens: 40, cost: 0.5 };
    expect(beyond(total, counted)).toEqual({
      api_calls: 1,
      prompt_tokens: 0,
      completion_tokens: 60,
      cost: 0,
    });
    expect(beyond(total, NO_STATS)).toEqual(total);
  });
});

describe("a tally: counted as reported per unit, settled by the unit's own totals", () => {
  it("adds what a unit's totals hold beyond its reports, takes nothing back, and forgets the unit once settled", () => {
    const start = { api_calls: 2, prompt_tokens: 0, completion_tokens: 0, cost: 3 };
    const tally = new StatsTally(start);
    const call = { api_calls: 1, prompt_tokens: 100, completion_tokens: 10, cost: 1 };
    tally.add(call, "a");
    tally.add(call, "a");
    tally.add(call);
    expect(tally.total).toEqual({ api_calls: 5, prompt_tokens: 300, completion_tokens: 30, cost: 6 });
    tally.settle("a", { api_calls: 3, prompt_tokens: 150, completion_tokens: 25, cost: 2.5 });
    expect(tally.total).toEqual({ api_calls: 6, prompt_tokens: 300, completion_tokens: 35, cost: 6.5 });
    // Settled once: a second result for the same unit counts in full (the run folder drops duplicates first).
    tally.settle("a", { api_calls: 1, prompt_tokens: 0, completion_tokens: 0, cost: 0 });
    expect(tally.total.api_calls).toBe(7);
    expect(start).toEqual({ api_calls: 2, prompt_tokens: 0, completion_tokens: 0, cost: 3 });
  });
});
