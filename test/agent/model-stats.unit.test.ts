import { describe, expect, it } from "vitest";
import { addCall, addStats, beyond, NO_STATS, oneCall, sumStats } from "../../src/agent/model-stats.js";

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
