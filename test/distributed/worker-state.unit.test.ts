import { describe, expect, it } from "vitest";
import { type JobHistory, planJob } from "../../src/distributed/job-plan.js";
import { backLine, startLine } from "../../src/distributed/protocol.js";
import { PAUSE_MAX_MS, PAUSE_MIN_MS, WorkerState } from "../../src/distributed/worker-state.js";
import { ManualClock } from "./manual-clock.js";

const RUN = "swebench-42-abc";
const JOB = `${RUN}.acme__lib-1`;
const ME = { id: "gpu1:11:a", host: "gpu1", pid: 11 };
const OTHER = { id: "gpu2:22:b", host: "gpu2", pid: 22 };

function fixture(graceMs = 60_000) {
  const clock = new ManualClock(Date.parse("2026-12-02T00:00:00.000Z"));
  const said: string[] = [];
  const state = new WorkerState({ clock, graceMs, say: (l) => said.push(l) });
  return { clock, said, state };
}

describe("WorkerState: a worker's decisions over its own state, on a hand-moved clock", () => {
  it("an interrupt stops that run's jobs, a cancel that job (and marks it: nothing is sent); others go on", () => {
    const { state } = fixture();
    const a = state.begin(JOB, RUN, "acme__lib-1");
    const b = state.begin(`${RUN}.acme__lib-2`, RUN, "acme__lib-2");
    const c = state.begin("other-run.acme__lib-3", "other-run", "acme__lib-3");
    state.control(`cancel ${JOB}`);
    expect([a.abort.signal.aborted, a.cancelled, b.abort.signal.aborted]).toEqual([true, true, false]);
    state.marks(new Set([RUN]), new Set());
    expect([b.abort.signal.aborted, b.cancelled, c.abort.signal.aborted]).toEqual([true, false, false]);
    expect([a, b, c].map((r) => state.after(r))).toEqual(["cancelled", "send", "send"]);
    state.control("nonsense");
    expect(c.abort.signal.aborted).toBe(false);
  });

  it("SIGTERM: no new job; the running ones get the grace period, then go back; the grace ends early when they do", async () => {
    const { clock, said, state } = fixture(60_000);
    const r = state.begin(JOB, RUN, "acme__lib-1");
    expect(state.stop()).toBe(true);
    expect(state.isStopping).toBe(true);
    expect(said).toEqual([
      "stopping: no new instance; 1 running get 60s to finish, then go back to the queue (signal again: at once)",
    ]);
    await clock.advance(59_999);
    expect(r.abort.signal.aborted).toBe(false);
    await clock.advance(1);
    expect([r.abort.signal.aborted, state.after(r)]).toEqual([true, "hand back"]);

    const second = fixture(60_000);
    second.state.begin(JOB, RUN, "acme__lib-1");
    second.state.stop();
    second.state.end(JOB);
    second.state.stopped();
    expect(second.clock.pending).toBe(0);
  });

  it("a second signal hands the running jobs back at once", () => {
    const { said, state } = fixture();
    const r = state.begin(JOB, RUN, "acme__lib-1");
    state.stop();
    expect(state.stop()).toBe(false);
    expect([r.abort.signal.aborted, r.handBack]).toEqual([true, true]);
    expect(said.at(-1)).toBe("handing the running instances back to the queue now");
  });

  it("refusals in a row pause it for longer each time (doubling up to the longest); a job it starts ends the row; its heartbeat lists the newest five reasons first", async () => {
    const { clock, state } = fixture();
    const pauses: number[] = [];
    for (let i = 0; i < 9; i++) {
      pauses.push(state.refused(`reason ${i % 7}`));
      await clock.advance(1000);
    }
    expect(pauses).toEqual([
      PAUSE_MIN_MS,
      2000,
      4000,
      8000,
      16_000,
      32_000,
      PAUSE_MAX_MS,
      PAUSE_MAX_MS,
      PAUSE_MAX_MS,
    ]);
    state.begin(JOB, RUN, "acme__lib-1");
    expect(state.refused("reason 0")).toBe(PAUSE_MIN_MS);
    state.paused("it keeps refusing jobs");
    const beat = state.beat();
    expect(beat.paused).toBe("it keeps refusing jobs");
    expect([beat.running, beat.jobs]).toEqual([1, [JOB]]);
    expect(beat.cannot).toEqual([
      // reasons 0 and 1 fell out of the list (older than five others) and count afresh since
      { reason: "reason 0", jobs: 2, last: "2026-12-02T00:00:09.000Z" },
      { reason: "reason 1", jobs: 1, last: "2026-12-02T00:00:08.000Z" },
      { reason: "reason 6", jobs: 1, last: "2026-12-02T00:00:06.000Z" },
      { reason: "reason 5", jobs: 1, last: "2026-12-02T00:00:05.000Z" },
      { reason: "reason 4", jobs: 1, last: "2026-12-02T00:00:04.000Z" },
    ]);
    state.resumed();
    expect(state.beat().paused).toBeUndefined();
  });
});

describe("planJob: what a worker does with a job, from its earlier deliveries", () => {
  const history = (h: Partial<JobHistory>): JobHistory => ({
    logs: [],
    acked: new Set(),
    waiting: new Set(),
    live: new Map(),
    interrupted: false,
    cancelled: false,
    ...h,
  });
  const d1 = `${JOB}.a1`;
  const d2 = `${JOB}.a2`;

  it("a new job runs; one whose result is in (acknowledged, or a cancel mark) ends unrun", () => {
    expect(planJob(JOB, ME.id, 3, undefined, history({}))).toEqual({ kind: "run" });
    expect(
      planJob(JOB, ME.id, 3, undefined, history({ logs: [startLine(d1, OTHER)], acked: new Set([d1]) })),
    ).toEqual({ kind: "done", why: "its result is in already" });
    expect(planJob(JOB, ME.id, 3, undefined, history({ cancelled: true }))).toEqual({
      kind: "done",
      why: "its result is in already",
    });
  });

  it("after an outage: a job whose delivery still runs on a live worker, or whose result waits, is not started again", () => {
    const logs = [startLine(d1, OTHER)];
    expect(planJob(JOB, ME.id, 3, undefined, history({ logs, live: new Map([[OTHER.id, [JOB]]]) }))).toEqual({
      kind: "later",
      why: `delivery ${d1} still runs on worker ${OTHER.id} (its lock lapsed while the queue did not answer)`,
    });
    expect(planJob(JOB, ME.id, 3, undefined, history({ logs, waiting: new Set([d1]) }))).toEqual({
      kind: "later",
      why: `the result of delivery ${d1} waits for its coordinator`,
    });
    expect(planJob(JOB, ME.id, 3, undefined, history({ logs: [startLine(d1, ME)] }))).toEqual({
      kind: "later",
      why: "this worker runs it already",
    });
    // its worker is gone (killed): a new delivery
    expect(planJob(JOB, ME.id, 3, undefined, history({ logs }))).toEqual({ kind: "run" });
  });

  it("nothing of an interrupted run starts", () => {
    expect(planJob(JOB, ME.id, 3, undefined, history({ interrupted: true }))).toEqual({
      kind: "later",
      why: "its run's coordinator was interrupted",
    });
  });

  it("deliveries count only those that ended without a result: handed back ones use none", () => {
    const handed = [
      startLine(d1, OTHER),
      backLine(d1, OTHER, "shutdown"),
      startLine(d2, OTHER),
      backLine(d2, OTHER, "shutdown"),
    ];
    expect(planJob(JOB, ME.id, 1, undefined, history({ logs: handed }))).toEqual({ kind: "run" });
    const killed = [startLine(d1, OTHER), startLine(d2, OTHER)];
    expect(
      planJob(JOB, ME.id, 2, "job stalled more than allowable limit", history({ logs: killed })),
    ).toEqual({
      kind: "give-up",
      reason:
        "given up after 2 deliveries that ended without a result (their worker was killed, or cut off from the " +
        "queue for longer than its lock); last error: job stalled more than allowable limit",
    });
    expect(planJob(JOB, ME.id, 3, undefined, history({ logs: killed }))).toEqual({ kind: "run" });
  });
});
