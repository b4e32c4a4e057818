import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent.js";
import type { DispatchHooks, InstanceResult, WorkerInfo } from "../../src/batch/types.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { CoordinatorState } from "../../src/distributed/coordinator-state.js";
import type { OutcomeReport } from "../../src/distributed/protocol.js";
import { ManualClock } from "./manual-clock.js";

const RUN = "swebench-42-abc";
const W1: WorkerInfo = { id: "gpu1:11:a", host: "gpu1", pid: 11 };
const W2: WorkerInfo = { id: "gpu2:22:b", host: "gpu2", pid: 22 };

const row = (n: number): SwebenchInstance =>
  ({ instance_id: `acme__lib-${n}`, repo: "acme/lib", base_commit: "0".repeat(40) }) as SwebenchInstance;

function fixture() {
  const clock = new ManualClock(Date.parse("2026-12-02T00:00:00.000Z"));
  const log: string[] = [];
  const say: string[] = [];
  const state = new CoordinatorState({
    run: RUN,
    clock,
    jobConfig: { agent: "masked" },
    modelName: "openai/fake",
    log: (l) => log.push(l),
    say: (l) => say.push(l),
  });
  const events: string[] = [];
  const hooks: DispatchHooks = {
    onStart: (w) => void events.push(`start ${w?.id}`),
    onAgentEvent: (e) => void events.push(JSON.stringify(e)),
  };
  const results = new Map<string, InstanceResult | null>();
  const add = (n: number) => {
    const { entry, result } = state.add({ row: row(n) }, hooks);
    void result.then((r) => results.set(entry.row.instance_id, r));
    return entry;
  };
  return { clock, log, say, state, events, results, add };
}

/** Lets the promise callbacks run (no time passes). */
const flush = () => new Promise((r) => setImmediate(r));

const report = (n: number, delivery: string): OutcomeReport => ({
  outcome: {
    instance_id: `acme__lib-${n}`,
    exit_status: "Submitted",
    exit_message: "",
    patch_bytes: 5,
    api_calls: 1,
    cost: 0,
    prompt_tokens: 1,
    completion_tokens: 1,
    started_at: "2026-12-02T00:00:00.000Z",
    ended_at: "2026-12-02T00:00:01.000Z",
    environment_seconds: 0,
    agent_seconds: 1,
    seconds: 1,
    patch: "diff\n",
    worker: W1.id,
    delivery,
  },
  files: { [`acme__lib-${n}.traj.json`]: "{}\n" },
  worker: W1,
});

const noDrop = () => null;

describe("CoordinatorState: what the queue's news means for a run's instances (no Redis, no sleeps)", () => {
  it("the enqueue pass adds what is not there, keeps what waits or runs (and a result not yet acknowledged), replaces what failed or was acknowledged, and skips what was recorded meanwhile", () => {
    const f = fixture();
    const e = [1, 2, 3, 4, 5, 6, 7].map(f.add);
    // recorded during the pass (a restarted coordinator's first results): never enqueued again
    f.state.giveUp(e[6], "recorded meanwhile");
    const plan = f.state.enqueuePlan(e, [
      { state: "unknown" },
      { state: "waiting" },
      { state: "active" },
      { state: "failed" },
      { state: "completed", delivery: `${e[4].jobId}.x`, acked: false },
      { state: "completed", delivery: `${e[5].jobId}.y`, acked: true },
      { state: "unknown" },
    ]);
    expect(plan.add.map((x) => x.row.instance_id)).toEqual(["acme__lib-1"]);
    expect(plan.replace.map((x) => x.row.instance_id)).toEqual(["acme__lib-4", "acme__lib-6"]);
    expect(plan.kept).toBe(3);
    expect(e.map((x) => [x.queued, x.started])).toEqual([
      [false, false],
      [true, false],
      [true, true],
      [false, false],
      [true, false],
      [false, false],
      [false, false],
    ]);
    expect(e[0].jobId).toBe(`${RUN}.acme__lib-1`);
  });

  it("progress goes to the hooks as the worker sent it (a start with its worker, agent events unchanged); malformed or unknown progress is ignored", () => {
    const f = fixture();
    const e = f.add(1);
    const call: AgentEvent = {
      type: "model_call",
      step: 1,
      usage: { prompt_tokens: 10, completion_tokens: 2 },
      cost: 0.5,
      tries: 1,
    };
    f.state.progress(e.jobId, { type: "start", worker: W1, delivery: `${e.jobId}.a` });
    f.state.progress(e.jobId, call);
    f.state.progress(e.jobId, { type: "model_call", cost: "lots" });
    f.state.progress(`${RUN}.acme__lib-9`, call);
    expect(f.events).toEqual([`start ${W1.id}`, JSON.stringify(call)]);
    expect(e.started).toBe(true);
  });

  it("a result is taken only for a delivery logged on its job, once; the folder's rule and repeats drop it (acknowledged), an unknown delivery is dropped unacknowledged", async () => {
    const f = fixture();
    const e = f.add(1);
    const delivery = `${e.jobId}.a1`;
    expect(f.state.result(report(1, `${e.jobId}.forged`), [delivery], noDrop)).toEqual({
      drop: "no worker started that delivery of its job",
      ack: false,
    });
    expect(f.state.result(report(1, delivery), [delivery], () => "the folder holds it already")).toEqual({
      drop: "the folder holds it already",
      ack: true,
    });
    const taken = f.state.result(report(1, delivery), [delivery], noDrop);
    expect("take" in taken && taken.take).toBe(e);
    await flush();
    expect(f.results.get("acme__lib-1")).toEqual({
      outcome: report(1, delivery).outcome,
      files: report(1, delivery).files,
      worker: W1,
    });
    expect(f.state.result(report(1, `${e.jobId}.a2`), [delivery, `${e.jobId}.a2`], noDrop)).toEqual({
      drop: "another result of it is being recorded",
      ack: true,
    });
    expect(f.state.result(report(7, `${RUN}.acme__lib-7.a`), [], noDrop)).toEqual({
      drop: "its instance was not sent to the queue in this run",
      ack: true,
    });
    // once the folder holds it: its delivery is acknowledged and its job goes
    let released: boolean | undefined;
    e.written = (ok) => {
      released = ok;
    };
    const settled = f.state.settle(f.results.get("acme__lib-1") as InstanceResult, true);
    expect([settled.ack, settled.remove]).toEqual([delivery, e.jobId]);
    // its result job completes (and goes from Redis) only once the coordinator releases it, after the ack
    expect(released).toBeUndefined();
    settled.release();
    expect(released).toBe(true);
    expect(f.state.open()).toEqual([]);
  });

  it("a result the folder could not write is neither acknowledged nor removed, and its result job is told so", () => {
    const f = fixture();
    const e = f.add(1);
    const delivery = `${e.jobId}.a1`;
    const taken = f.state.result(report(1, delivery), [delivery], noDrop);
    if (!("take" in taken)) throw new Error(`dropped: ${taken.drop}`);
    let written: boolean | undefined;
    taken.take.written = (ok) => {
      written = ok;
    };
    const settled = f.state.settle(taken.result, false);
    expect([settled.ack, settled.remove]).toEqual([null, null]);
    settled.release();
    expect(written).toBe(false);
  });

  it("refusals: said once per worker and reason; an instance that every live worker refused is given up naming each reason; with one live worker that did not refuse, or none live, it waits", async () => {
    const f = fixture();
    const [a, b] = [f.add(1), f.add(2)];
    const refusal = (n: number, w: WorkerInfo, reason: string) => ({
      instance_id: `acme__lib-${n}`,
      job: `${RUN}.acme__lib-${n}`,
      worker: w,
      reason,
    });
    f.state.refused(refusal(1, W1, "no clone of acme/lib"));
    f.state.refused(refusal(2, W1, "no clone of acme/lib"));
    f.state.refused(refusal(2, W2, "it lacks model.api_key"));
    // a refusal naming another job of the instance is not this run's
    f.state.refused({ ...refusal(1, W2, "x"), job: `${RUN}.other__repo-1` });
    expect(f.say).toEqual([
      `worker ${W1.id} cannot run some instances: no clone of acme/lib (they go to other workers; patchloop queue status lists it)`,
      `worker ${W2.id} cannot run some instances: it lacks model.api_key (they go to other workers; patchloop queue status lists it)`,
    ]);
    expect(f.log).toEqual([
      `acme__lib-1: worker ${W1.id} cannot run it: no clone of acme/lib`,
      `acme__lib-2: worker ${W1.id} cannot run it: no clone of acme/lib`,
      `acme__lib-2: worker ${W2.id} cannot run it: it lacks model.api_key`,
    ]);
    expect(f.state.refusedOpen()).toEqual([a, b]);
    expect(f.state.unrunnable([a, b], [])).toEqual([]);
    expect(f.state.unrunnable([a, b], [W1.id, W2.id])).toEqual([b]);
    await flush();
    expect(f.results.has("acme__lib-1")).toBe(false);
    const given = f.results.get("acme__lib-2");
    expect([given?.outcome.exit_status, given?.outcome.exit_message, given?.outcome.delivery]).toEqual([
      "EnvironmentError",
      `the queue gave this instance up: no live worker can run it (${W1.id}: no clone of acme/lib; ${W2.id}: it lacks model.api_key)`,
      `${b.jobId}.given-up`,
    ]);
    expect(given?.outcome.started_at).toBe("2026-12-02T00:00:00.000Z");
    expect(Object.keys(given?.files ?? {})).toEqual(["acme__lib-2.traj.json"]);
    // W2 gone: W1 alone is live, and it refused the first one
    expect(f.state.unrunnable([a], [W1.id])).toEqual([a]);
  });

  it("a removed job withdraws an instance that had not started; a started one, or one being removed after its result, stays", async () => {
    const f = fixture();
    const [a, b] = [f.add(1), f.add(2)];
    f.state.progress(b.jobId, { type: "start", worker: W1, delivery: `${b.jobId}.a` });
    f.state.removed(a.jobId);
    f.state.removed(b.jobId);
    await flush();
    expect(f.results.get("acme__lib-1")).toBeNull();
    expect(f.results.has("acme__lib-2")).toBe(false);
    expect(f.log).toEqual(["acme__lib-1: its job was removed from the queue before it started"]);
  });

  it("a periodic look: a failed job gives its instance up with BullMQ's reason; a vanished job that never started is withdrawn; an active one is started", async () => {
    const f = fixture();
    const [a, b, c] = [f.add(1), f.add(2), f.add(3)];
    f.state.observe(a, "failed", "a job of this run was refused: its row is malformed");
    f.state.observe(b, "unknown", undefined);
    f.state.observe(c, "active", undefined);
    await flush();
    expect(f.results.get("acme__lib-1")?.outcome.exit_message).toBe(
      "the queue gave this instance up: a job of this run was refused: its row is malformed",
    );
    expect(f.results.get("acme__lib-2")).toBeNull();
    expect(c.started).toBe(true);
    expect(f.state.open()).toEqual([c]);
  });

  it("stopping withdraws only what has not started; the heartbeat counts what is still waited for and says when the coordinator started", async () => {
    const f = fixture();
    const [a, b] = [f.add(1), f.add(2)];
    expect(f.state.withdrawable()).toEqual([]);
    f.state.stopping = true;
    f.state.progress(b.jobId, { type: "start", worker: W1, delivery: `${b.jobId}.a` });
    expect(f.state.withdrawable()).toEqual([a]);
    f.state.withdrawn(a);
    await f.clock.advance(5000);
    expect(f.state.heartbeat({ host: "boss", pid: 7, dir: "/runs/x" })).toEqual({
      run: RUN,
      host: "boss",
      pid: 7,
      dir: "/runs/x",
      started_at: "2026-12-02T00:00:00.000Z",
      outstanding: 1,
    });
    expect(["unknown", "active", "waiting", "completed"].map((s) => f.state.removal(s))).toEqual([
      "gone",
      "cancel",
      "remove",
      "remove",
    ]);
  });
});
