import { describe, expect, it } from "vitest";
import { createProgressDisplay, type DisplayClock } from "../../src/batch/progress-display.js";
import { formatCount, formatDuration, liveLines, plainLine } from "../../src/batch/progress-render.js";
import { type ProgressSnapshot, ProgressState } from "../../src/batch/progress-state.js";
import { summaryTable } from "../../src/batch/summary-table.js";
import type { BatchEvent, TaskOutcome } from "../../src/batch/types.js";

function outcome(
  id: string,
  exit_status: TaskOutcome["exit_status"],
  extra: Partial<TaskOutcome> = {},
): TaskOutcome {
  return {
    instance_id: id,
    exit_status,
    exit_message: "",
    patch_bytes: 10,
    api_calls: 3,
    cost: 0.5,
    prompt_tokens: 1000,
    completion_tokens: 100,
    started_at: "",
    ended_at: "",
    environment_seconds: 1,
    agent_seconds: 60,
    seconds: 61,
    patch: "",
    ...extra,
  };
}

/** A reply of the model at `step`: its message, then the call's typed usage event. */
const reply = (id: string, step: number, cost: number): BatchEvent[] => [
  {
    type: "agent",
    instance_id: id,
    event: { type: "message", step, message: { role: "assistant", content: "x" } },
  },
  {
    type: "agent",
    instance_id: id,
    event: {
      type: "model_call",
      step,
      usage: { prompt_tokens: 1500, completion_tokens: 20 },
      cost,
      tries: 1,
    },
  },
];

/** A display clock moved by hand: `advance` runs each timer as often as its interval says. */
function handClock(start: number): { clock: DisplayClock; advance(ms: number): void; timers(): number } {
  let now = start;
  const timers = new Set<{ ms: number; due: number; tick: () => void }>();
  return {
    clock: {
      now: () => now,
      every(ms, tick) {
        const timer = { ms, due: now + ms, tick };
        timers.add(timer);
        return () => timers.delete(timer);
      },
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...timers].filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
        if (!next) break;
        now = next.due;
        next.due += next.ms;
        next.tick();
      }
      now = end;
    },
    timers: () => timers.size,
  };
}

const snap = (over: Partial<ProgressSnapshot>): ProgressSnapshot => ({
  unit: "instances",
  total: 300,
  skipped: 10,
  doneNow: 20,
  running: [],
  counts: {},
  totals: { api_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 },
  elapsedSeconds: 600,
  perHour: 120,
  etaSeconds: 8100,
  stopping: null,
  ...over,
});

describe("progress", () => {
  it("formats durations and counts", () => {
    expect([
      formatDuration(0),
      formatDuration(59.4),
      formatDuration(61),
      formatDuration(3599),
      formatDuration(7380),
    ]).toEqual(["0s", "59s", "1m01s", "59m59s", "2h03m"]);
    expect([formatCount(999), formatCount(1234), formatCount(4_560_000)]).toEqual(["999", "1.2k", "4.56M"]);
  });

  it("folds events: running instances with their step, counts per exit status, tokens, cost, rate and ETA", () => {
    const t0 = 1_700_000_000_000;
    let now = t0;
    const s = new ProgressState({ now: () => now });
    s.apply({ type: "planned", total: 5, skipped: 1, todo: 4 });
    s.apply({ type: "instance_start", instance_id: "a" });
    s.apply({ type: "instance_start", instance_id: "b" });
    for (const e of [...reply("a", 1, 0.25), ...reply("a", 2, 0.25), ...reply("b", 1, 0.5)]) s.apply(e);
    s.apply({
      type: "agent",
      instance_id: "a",
      event: { type: "message", step: 2, message: { role: "tool", content: "ok" } },
    });
    const b = { api_calls: 1, cost: 0.5, prompt_tokens: 1500, completion_tokens: 20 };
    s.apply({ type: "instance_end", outcome: outcome("b", "LimitsExceeded", b) });
    now = t0 + 3600_000;
    const snapshot = s.snapshot();
    expect(snapshot).toMatchObject({
      total: 5,
      skipped: 1,
      doneNow: 1,
      counts: { LimitsExceeded: 1 },
      totals: { api_calls: 3, prompt_tokens: 4500, completion_tokens: 60, cost: 1 },
      perHour: 1,
      etaSeconds: 3 * 3600,
    });
    expect(snapshot.running.map((r) => [r.id, r.step])).toEqual([["a", 2]]);
    // An instance that must run again ends, but is not done: the rate and the ETA stay.
    s.apply({ type: "instance_end", outcome: outcome("a", "EnvironmentError") });
    // Its outcome (3 calls, $0.50, 1000 in / 100 out) holds one call and 60 output tokens more than
    // its events reported (a remote worker's progress lost on the way): those are added; nothing is
    // taken back (1000 < the 3000 prompt tokens counted).
    expect(s.snapshot()).toMatchObject({
      doneNow: 2,
      perHour: 1,
      etaSeconds: 2 * 3600,
      totals: { api_calls: 4, cost: 1, prompt_tokens: 4500, completion_tokens: 120 },
    });
  });

  it("a queue run shows its workers and which worker runs each instance", () => {
    const t0 = 1_700_000_000_000;
    const s = new ProgressState({ now: () => t0 });
    s.apply({ type: "planned", total: 3, skipped: 0, todo: 3 });
    s.apply({
      type: "workers",
      workers: [
        { id: "gpu-a:41:1", host: "gpu-a", pid: 41, slots: 16, running: 1 },
        { id: "gpu-b:7:1", host: "gpu-b", pid: 7, slots: 8, running: 0 },
      ],
    });
    s.apply({
      type: "instance_start",
      instance_id: "x",
      worker: { id: "gpu-a:41:1", host: "gpu-a", pid: 41 },
    });
    const lines = liveLines(s.snapshot(), { now: t0 });
    expect(lines.slice(3)).toEqual([
      "workers 2 (24 slots, 1 running): gpu-a:41 1/16, gpu-b:7 0/8",
      "  x  step   0  0s  on gpu-a:41",
    ]);
    expect(plainLine(s.snapshot())).toContain("| workers 2 (24 slots, 1 running)");
  });

  it("the live block: totals, statuses, usage, running instances (capped), and a stop notice", () => {
    const now = 1_000_000;
    const running = ["django__django-11099", "sympy__sympy-20590", "a", "b"].map((id, i) => ({
      id,
      step: 3 * i,
      startedAt: now - 1000 * (65 + i),
    }));
    const lines = liveLines(
      snap({
        running,
        counts: { Submitted: 18, LimitsExceeded: 1, EnvironmentError: 1 },
        totals: { api_calls: 812, prompt_tokens: 2_500_000, completion_tokens: 41_000, cost: 3.214 },
        stopping: "cost_limit",
      }),
      { now, maxRunning: 3 },
    );
    expect(lines).toEqual([
      "30/300 done (10 from earlier runs)  4 running  120.0 inst/h  ETA 2h15m  elapsed 10m00s",
      "Submitted 18  LimitsExceeded 1  EnvironmentError 1",
      "tokens 2.50M in / 41.0k out  812 calls  $3.21",
      "stopping (cost_limit): no new instances; waiting for the running ones",
      "  django__django-11099  step   0  1m05s",
      "  sympy__sympy-20590    step   3  1m06s",
      "  a                     step   6  1m07s",
      "  ... and 1 more",
    ]);
    expect(plainLine(snap({ counts: { Submitted: 2 } }))).toBe(
      "[progress] 30/300 done (10 from earlier runs)  0 running  120.0 inst/h  ETA 2h15m  elapsed 10m00s | Submitted=2 | tokens 0 in / 0 out  0 calls  $0.00",
    );
    expect(liveLines(snap({ perHour: 0, etaSeconds: null }))[0]).toBe(
      "30/300 done (10 from earlier runs)  0 running  - inst/h  ETA -  elapsed 10m00s",
    );
  });

  it("on a terminal, redraws the block in place and scrolls a line per finished instance above it", () => {
    const written: string[] = [];
    const d = createProgressDisplay({
      write: (t) => written.push(t),
      tty: true,
      columns: 40,
      intervalMs: 3_600_000,
    });
    d.onEvent({ type: "planned", total: 2, skipped: 0, todo: 2 });
    d.onEvent({ type: "instance_start", instance_id: "x__y-1" });
    d.onEvent({ type: "instance_end", outcome: outcome("x__y-1", "Submitted") });
    d.onEvent({
      type: "instance_end",
      outcome: outcome("x__y-2", "ModelError", {
        api_calls: 7,
        cost: 0.125,
        seconds: 5,
        exit_message: "openai/fake: gave up after 3 tries;\n last error: HTTP 503",
      }),
    });
    expect(written[0]).toBe("[1/2] x__y-1 Submitted (3 calls, $0.50, 1m01s)\n");
    const block = written[1].split("\n");
    expect(block).toHaveLength(4); // three lines and the final newline
    expect(block.every((l) => l.replace(/\x1b\[[0-9;]*m/g, "").length <= 39)).toBe(true);
    expect(written[2]).toBe("\x1b[3F\x1b[J");
    expect(written[3]).toBe(
      "[2/2] x__y-2 ModelError (7 calls, $0.13, 5s): openai/fake: gave up after 3 tries; last error: HTTP 503\n",
    );
    const before = written.length;
    d.print("WARNING: something");
    expect(written.slice(before, before + 2)).toEqual(["\x1b[3F\x1b[J", "WARNING: something\n"]);
    expect(written[before + 2].startsWith("\x1b[1m2/2 done")).toBe(true);
    d.stop();
    expect(written[written.length - 1]).toBe("\x1b[3F\x1b[J");
  });

  it("elsewhere, prints plain progress lines on a timer", () => {
    const written: string[] = [];
    const hand = handClock(1_700_000_000_000);
    const d = createProgressDisplay({
      write: (t) => written.push(t),
      tty: false,
      intervalMs: 20,
      clock: hand.clock,
    });
    d.onEvent({ type: "planned", total: 1, skipped: 0, todo: 1 });
    hand.advance(19);
    expect(written).toEqual([]);
    hand.advance(101);
    const line =
      "[progress] 0/1 done  0 running  - inst/h  ETA -  elapsed 0s | none finished | tokens 0 in / 0 out  0 calls  $0.00\n";
    expect(written).toEqual(Array(6).fill(line));
    hand.advance(880);
    expect(written.at(-1)).toBe(line.replace("elapsed 0s", "elapsed 1s"));
    d.stop();
    expect(hand.timers()).toBe(0);
    hand.advance(60);
    expect(written).toHaveLength(50);
  });

  it("on a terminal, the block follows a resized terminal", () => {
    const written: string[] = [];
    let width = 60;
    const d = createProgressDisplay({
      write: (t) => written.push(t),
      tty: true,
      columns: () => width,
      intervalMs: 3_600_000,
    });
    d.onEvent({ type: "planned", total: 300, skipped: 0, todo: 300 });
    d.onEvent({ type: "instance_start", instance_id: "django__django-11099" });
    const visible = (block: string) =>
      Math.max(...block.split("\n").map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").length));
    d.print("a");
    const wide = visible(written[written.length - 1]);
    width = 20;
    d.print("b");
    const narrow = visible(written[written.length - 1]);
    // A terminal that reports a width of 0 (a pty of `script`) still shows the block.
    width = 0;
    d.print("c");
    const unknown = visible(written[written.length - 1]);
    d.stop();
    expect(wide).toBeGreaterThan(19);
    expect(wide).toBeLessThanOrEqual(59);
    expect(narrow).toBeLessThanOrEqual(19);
    expect(unknown).toBeGreaterThan(19);
  });

  it("the summary table", () => {
    const text = summaryTable(
      {
        outcomes: [outcome("a", "Submitted"), outcome("b", "Submitted"), outcome("c", "Interrupted")],
        skipped: ["d", "e"],
        notStarted: ["f"],
        stoppedBy: "interrupted",
        statuses: { a: "Submitted", b: "Submitted", c: "Interrupted", d: "Submitted", e: "ContextExceeded" },
        pending: ["c", "f"],
        totals: { api_calls: 9, cost: 1.5, prompt_tokens: 3000, completion_tokens: 300 },
        wallSeconds: 120,
      },
      "/runs/x",
    );
    expect(text).toBe(
      [
        "exit status      this run  earlier  total",
        "---------------  --------  -------  -----",
        "Submitted               2        1      3",
        "ContextExceeded         0        1      1",
        "Interrupted             1        0      1",
        "total                   3        2      5",
        "not started             1",
        "",
        "model calls 9, tokens 3.0k in / 300 out, cost $1.50, wall 2m00s, 60.0 instances/hour",
        "results in /runs/x (preds.json, exit_statuses.yaml, run.json, run.log)",
        "stopped early: interrupted. Run the same command again to continue (finished instances are kept; Interrupted, EnvironmentError and ModelError-after-retries ones run again).",
        "",
      ].join("\n"),
    );
  });

  it("the summary after a cap says to raise it; after pending instances, to run again", () => {
    const base = {
      outcomes: [outcome("a", "Submitted"), outcome("b", "ModelError")],
      skipped: [],
      notStarted: [],
      statuses: { a: "Submitted" as const, b: "ModelError" as const },
      totals: { api_calls: 2, cost: 0.5, prompt_tokens: 10, completion_tokens: 1 },
      wallSeconds: 3600,
    };
    const capped = summaryTable({ ...base, stoppedBy: "cost_limit", pending: [] }, "/r")
      .trimEnd()
      .split("\n");
    expect(capped.at(-1)).toBe(
      "stopped early: the global cost limit (--cost-limit, over every instance of the folder) was reached. " +
        "To continue, run the same command again with a higher --cost-limit (finished instances are kept; " +
        "Interrupted, EnvironmentError and ModelError-after-retries ones run again).",
    );
    const again = summaryTable({ ...base, stoppedBy: null, pending: ["b"] }, "/r")
      .trimEnd()
      .split("\n");
    expect(again.at(-3)).toContain("1.0 instances/hour");
    expect(again.at(-1)).toBe(
      "1 instance(s) must run again (Interrupted, EnvironmentError, or ModelError after the server kept failing): run the same command again.",
    );
  });
});
