import { type DispatchHooks, type InstanceResult, unitKey, type WorkUnit } from "../batch/types.js";
import type { SwebenchInstance } from "../dataset/types.js";
import type { Clock } from "./clock.js";
import { givenUp } from "./given-up.js";
import { instanceJobId } from "./keys.js";
import type { OutcomeReport, Refusal, RunHeartbeat } from "./protocol.js";
import { deliveryProblem, readProgress } from "./result-check.js";

/** One instance the coordinator waits for. */
export interface Entry {
  row: SwebenchInstance;
  /** The attempt of the instance (run.attempts above 1); absent: its one run. */
  attempt?: number;
  /** `<id>` or `<id>/attempt-<k>`: what `pending` and the run folder know it by. */
  key: string;
  jobId: string;
  hooks: DispatchHooks;
  resolve: (result: InstanceResult | null) => void;
  /** A worker said it started (or its job was seen running). */
  started: boolean;
  /** `run` has resolved; further results of the instance are repeats. */
  done: boolean;
  /** Its job is in the queue (added now, or kept from an earlier coordinator). */
  queued: boolean;
  /** Resolved by `settle`: the result job may complete (acknowledged) or must stay (false). */
  written?: (ok: boolean) => void;
  /** Workers that cannot run it, and why (refusals). */
  refusals: Map<string, string>;
}

/** A job of the queue as the enqueue pass found it. */
export interface JobSnapshot {
  state: string;
  /** For a completed job: the delivery its worker returned, and whether the coordinator acknowledged it. */
  delivery?: string | null;
  acked?: boolean;
}

/** What the folder says of a result (the duplicate rule lives there: RunFolder.dropReason). */
export type DropRule = (instanceId: string, delivery: string | undefined) => string | null;

/** What the coordinator does with a result from the queue. */
export type ResultDecision = { take: Entry; result: InstanceResult } | { drop: string; ack: boolean };

/** Job states in which a job waits for a worker. */
export const WAITING_STATES = ["waiting", "delayed", "prioritized", "waiting-children"];

/**
 * What a queue run's coordinator decides, over explicit state: the instances it waits for (one
 * job each), what the queue's news means for them (a worker's progress, a result, a refusal, a
 * failed, removed or vanished job), which jobs to add, keep or replace when it starts, when an
 * instance no live worker can run is given up, what the workers may forget (acknowledgements)
 * and which jobs go. No I/O: coordinator-dispatch.ts reads the queue, calls these, and acts.
 */
export class CoordinatorState {
  readonly pending = new Map<string, Entry>();
  private readonly byJob = new Map<string, Entry>();
  /** Jobs to remove once they can be (their results are recorded; one may still run as a repeat). */
  readonly toRemove = new Set<string>();
  /** Nothing new starts (a cap, Ctrl-C): jobs that wait are withdrawn. */
  stopping = false;
  private readonly toldRefusals = new Set<string>();
  private readonly startedAt: number;

  constructor(
    private readonly o: {
      run: string;
      clock: Clock;
      jobConfig: unknown;
      modelName: string;
      /** Lines for run.log. */
      log: (line: string) => void;
      /** Lines for the person. */
      say: (line: string) => void;
    },
  ) {
    this.startedAt = o.clock.now();
  }

  /** The scheduler hands an instance over: it waits for its result (null: withdrawn before it started). */
  add(unit: WorkUnit, hooks: DispatchHooks): { entry: Entry; result: Promise<InstanceResult | null> } {
    let resolve: (r: InstanceResult | null) => void = () => {};
    const result = new Promise<InstanceResult | null>((r) => {
      resolve = r;
    });
    const { row, attempt } = unit;
    const key = unitKey(row.instance_id, attempt);
    const jobId = instanceJobId(this.o.run, key);
    const entry: Entry = {
      row,
      ...(attempt !== undefined ? { attempt } : {}),
      key,
      jobId,
      hooks,
      resolve,
      started: false,
      done: false,
      queued: false,
      refusals: new Map(),
    };
    this.pending.set(key, entry);
    this.byJob.set(jobId, entry);
    return { entry, result };
  }

  entryOf(jobId: string): Entry | undefined {
    return this.byJob.get(jobId);
  }

  /** The instances still waited for. */
  open(): Entry[] {
    return [...this.pending.values()].filter((e) => !e.done);
  }

  private finish(e: Entry, result: InstanceResult | null): void {
    if (e.done) return;
    e.done = true;
    e.resolve(result);
  }

  /** An instance no worker will run: given up as EnvironmentError saying why. */
  giveUp(e: Entry, reason: string): void {
    this.finish(
      e,
      givenUp(e.row, {
        jobConfig: this.o.jobConfig,
        modelName: this.o.modelName,
        jobId: e.jobId,
        attempt: e.attempt,
        reason,
        now: this.o.clock.now(),
      }),
    );
  }

  /**
   * The enqueue pass over instances handed over together, with their jobs as found: a job that
   * waits or runs (left by an earlier coordinator of this run) is kept; one that completed is
   * kept while its result waits (not acknowledged), else replaced, as is one that failed; none is
   * added. Instances whose result came meanwhile are left out.
   */
  enqueuePlan(entries: Entry[], found: JobSnapshot[]): { add: Entry[]; replace: Entry[]; kept: number } {
    const add: Entry[] = [];
    const replace: Entry[] = [];
    let kept = 0;
    for (const [i, e] of entries.entries()) {
      const f = found[i];
      if (e.done) continue;
      if (f.state === "unknown") add.push(e);
      else if (f.state === "failed" || (f.state === "completed" && (!f.delivery || f.acked))) replace.push(e);
      else {
        kept++;
        e.queued = true;
        if (f.state === "active") e.started = true;
      }
    }
    return { add, replace, kept };
  }

  /** A worker's progress on a job: checked, then handed on as it is; anything else is ignored. */
  progress(jobId: string, data: unknown): void {
    const e = this.byJob.get(jobId);
    const p = readProgress(data);
    if (!e || e.done || !p) return;
    if (p.type === "start") {
      e.started = true;
      e.hooks.onStart(p.worker);
    } else e.hooks.onAgentEvent(p);
  }

  /** BullMQ gave a job up (its deliveries spent, or refused as wrong): the instance is given up with the reason. */
  failed(jobId: string, reason: string): void {
    const e = this.byJob.get(jobId);
    if (e && !e.done) this.giveUp(e, reason);
  }

  /** A job was removed from the queue (`queue drain`, by hand): an instance that had not started is withdrawn. */
  removed(jobId: string): void {
    const e = this.byJob.get(jobId);
    if (!e || e.done || e.started || this.toRemove.has(jobId)) return;
    this.o.log(`${e.key}: its job was removed from the queue before it started`);
    this.finish(e, null);
  }

  /** A job's state as a periodic look found it (for events missed while the queue was away). */
  observe(e: Entry, state: string, failedReason: string | undefined): void {
    if (e.done) return;
    if (state === "failed") this.giveUp(e, failedReason ?? "it failed");
    else if (state === "unknown" && !e.started) {
      this.o.log(`${e.key}: its job is no longer in the queue; it did not start`);
      this.finish(e, null);
    } else if (state === "active") e.started = true;
  }

  /** Instances to withdraw while stopping: handed over, not started, still waited for. */
  withdrawable(): Entry[] {
    return this.stopping ? this.open().filter((e) => !e.started) : [];
  }

  /** Its waiting job is gone from the queue: withdrawn (its `run` resolves null). */
  withdrawn(e: Entry): void {
    this.finish(e, null);
  }

  /**
   * A worker's result (checked by result-check.ts): taken for an instance this run waits for,
   * from a delivery a worker logged on its job (`started`), and that the folder would record
   * (`drop`: its duplicate rule); else dropped, with why, acknowledged when it is a repeat (the
   * worker may forget it) and kept unacknowledged when no worker made it.
   */
  result(report: OutcomeReport, started: readonly string[], drop: DropRule): ResultDecision {
    const { outcome } = report;
    const id = unitKey(outcome.instance_id, outcome.attempt_number);
    const e = this.pending.get(id);
    const why =
      drop(id, outcome.delivery) ??
      (!e
        ? "its instance was not sent to the queue in this run"
        : e.done
          ? "another result of it is being recorded"
          : null);
    if (why || !e) return { drop: why ?? "", ack: true };
    const unknown = deliveryProblem(outcome.delivery, e.jobId, started);
    if (unknown) return { drop: unknown, ack: false };
    const result: InstanceResult = {
      outcome,
      files: report.files,
      worker: report.worker,
      ...(report.replicas ? { replicas: report.replicas } : {}),
    };
    this.finish(e, result);
    return { take: e, result };
  }

  /** A worker cannot run an instance's job (it went back to the queue): noted, said once per worker and reason. */
  refused(r: Refusal): void {
    const e = this.byJob.get(r.job);
    if (!e || e.done || e.row.instance_id !== r.instance_id) return;
    e.refusals.set(r.worker.id, r.reason);
    this.o.log(`${r.instance_id}: worker ${r.worker.id} cannot run it: ${r.reason}`);
    const said = `${r.worker.id}\n${r.reason}`;
    if (this.toldRefusals.has(said)) return;
    this.toldRefusals.add(said);
    this.o.say(
      `worker ${r.worker.id} cannot run some instances: ${r.reason} (they go to other workers; patchloop queue status lists it)`,
    );
  }

  /** Instances some worker refused, still waited for (their jobs' states decide `unrunnable`). */
  refusedOpen(): Entry[] {
    return this.open().filter((e) => e.refusals.size > 0);
  }

  /**
   * The refusal rule: an instance whose job waits (not running) and that every live worker has
   * refused is given up now (EnvironmentError, naming each worker's reason); with no live worker,
   * nothing is given up (a worker may come). Returns those given up.
   */
  unrunnable(waiting: Entry[], live: readonly string[]): Entry[] {
    if (live.length === 0) return [];
    const out: Entry[] = [];
    for (const e of waiting) {
      if (e.done || !live.every((w) => e.refusals.has(w))) continue;
      const reasons = live.map((w) => `${w}: ${e.refusals.get(w)}`).join("; ");
      this.giveUp(e, `no live worker can run it (${reasons})`);
      out.push(e);
    }
    return out;
  }

  /**
   * The scheduler is done with a result: when the folder holds it, its delivery is to be
   * acknowledged (the worker may forget it) and its job goes. Then, and only then, its result job
   * may complete (`release`: it is removed from Redis as it completes, so a worker that looks for
   * it afterwards finds the acknowledgement, never neither, and sends nothing again).
   */
  settle(
    result: InstanceResult,
    written: boolean,
  ): { ack: string | null; remove: string | null; release: () => void } {
    const id = unitKey(result.outcome.instance_id, result.outcome.attempt_number);
    const e = this.pending.get(id);
    const out = { ack: null as string | null, remove: null as string | null };
    if (written) {
      out.ack = result.outcome.delivery ?? null;
      if (e) {
        this.pending.delete(id);
        this.byJob.delete(e.jobId);
        out.remove = e.jobId;
      }
    }
    return { ...out, release: () => e?.written?.(written) };
  }

  /** What a job removal means now: an active job (a repeat still running) is told to stop first. */
  removal(state: string): "cancel" | "remove" | "gone" {
    return state === "unknown" ? "gone" : state === "active" ? "cancel" : "remove";
  }

  /** The run's heartbeat. */
  heartbeat(facts: { host: string; pid: number; dir: string }): RunHeartbeat {
    return {
      run: this.o.run,
      ...facts,
      started_at: new Date(this.startedAt).toISOString(),
      outstanding: this.open().length,
    };
  }
}
