import { describe, expect, it } from "vitest";
import { createProgressDisplay } from "../../src/batch/progress-display.js";
import { liveLines, retryText } from "../../src/batch/progress-render.js";
import { ProgressState } from "../../src/batch/progress-state.js";
import type { BatchEvent } from "../../src/batch/types.js";

const retry = (id: string, waitSeconds: number): BatchEvent => ({
  type: "agent",
  instance_id: id,
  event: {
    type: "model_retry",
    step: 4,
    tryNumber: 1,
    maxTries: 6,
    waitSeconds,
    reason: "HTTP 503: the server is overloaded",
  },
});

describe("model retry waits in the batch progress", () => {
  it("the running instance's line shows the reason, the attempt and the time left, until the call succeeds", () => {
    const t = 1_700_000_000_000;
    const state = new ProgressState({ now: () => t });
    state.apply({ type: "planned", total: 2, skipped: 0, todo: 2 });
    state.apply({ type: "instance_start", instance_id: "django__django-1" });
    state.apply(retry("django__django-1", 30));
    const waiting = liveLines(state.snapshot(), { now: t + 12_000 });
    expect(waiting.at(-1)).toBe(
      "  django__django-1  step   0  12s  model retry 2/6 in 18s: HTTP 503: the server is overloaded",
    );
    state.apply({
      type: "agent",
      instance_id: "django__django-1",
      event: {
        type: "model_call",
        step: 4,
        usage: { prompt_tokens: 1, completion_tokens: 1 },
        cost: 0,
        tries: 2,
      },
    });
    expect(liveLines(state.snapshot(), { now: t }).at(-1)).toBe("  django__django-1  step   4  0s");
  });

  it("off a terminal each wait is a line of its own", () => {
    const written: string[] = [];
    const display = createProgressDisplay({ write: (s) => written.push(s), tty: false, intervalMs: 60_000 });
    display.onEvent({ type: "instance_start", instance_id: "a__b-1" });
    display.onEvent(retry("a__b-1", 8));
    display.stop();
    expect(written).toEqual([
      "[retry] a__b-1 step 4: model retry 2/6 in 8s: HTTP 503: the server is overloaded\n",
    ]);
  });

  it("long reasons are cut to one short line", () => {
    const text = retryText({ until: 5000, tryNumber: 3, maxTries: 6, reason: `x\n${"y".repeat(200)}` }, 0);
    expect(text).toBe(`model retry 4/6 in 5s: x ${"y".repeat(77)}…`);
  });
});
