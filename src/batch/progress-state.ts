import { type ModelStats, StatsTally } from "../agent/model-stats.js";
import type { ExitStatus } from "../agent/trajectory-types.js";
import { mustRunAgain } from "../run-folder/resume.js";
import { type BatchEvent, unitKey, type WorkerView } from "./types.js";
import { usageOf } from "./usage.js";

/** One instance in flight. */
export interface RunningInstance {
  id: string;
  /** Model calls made so far. */
  step: number;
  startedAt: number;
  /** The remote worker running it (`host:pid`), for queue runs. */
  worker?: string;
  /** Set while the instance waits to try a failed model call again. */
  retry?: { until: number; tryNumber: number; maxTries: number; reason: string };
}

/** A snapshot of a batch's progress, for the live display and the summary. */
export interface ProgressSnapshot {
  /**
   * What the counts count: `instances`, or with several attempts per instance `attempts` (then
   * `total`, `skipped`, `doneNow`, `counts` and `perHour` are attempts).
   */
  unit: "instances" | "attempts";
  /** Selected instances (attempts: planned attempts, replacements included, those the policy stopped left out). */
  total: number;
  /** Instances (attempts) with a final status from an earlier run (not run now). */
  skipped: number;
  /** Instances (attempts) ended in this run. */
  doneNow: number;
  /** Instances started in this run and not ended yet, oldest first. */
  running: RunningInstance[];
  /** Exit statuses of this run's instances. */
  counts: Partial<Record<ExitStatus, number>>;
  /** Model usage of this run's instances: what their events reported, then what their outcomes added. */
  totals: ModelStats;
  elapsedSeconds: number;
  /**
   * Instances finished per hour in this run (0 before the first finishes). Instances that must run
   * again (Interrupted, EnvironmentError, ModelError after retries) do not count: they are not done.
   */
  perHour: number;
  /** Seconds until the remaining instances are done at the current rate; null before the first ends. */
  etaSeconds: number | null;
  /** Why launching stopped, when it did. */
  stopping: string | null;
  /** The remote workers of a queue run (absent otherwise). */
  workers?: WorkerView[];
}

/** Options of `ProgressState`. */
export interface ProgressStateOptions {
  /** The clock (milliseconds since the epoch); the run starts when the state is made. Default `Date.now`. */
  now?: () => number;
}

/** Folds batch events into a progress snapshot. */
export class ProgressState {
  private unit: ProgressSnapshot["unit"] = "instances";
  private total = 0;
  private skipped = 0;
  private todo = 0;
  private doneNow = 0;
  private finishedNow = 0;
  private readonly running = new Map<string, RunningInstance>();
  private readonly counts: Partial<Record<ExitStatus, number>> = {};
  /** What the events reported, per unit, settled by each unit's outcome. */
  private readonly usage = new StatsTally();
  private stopping: string | null = null;
  private workers: WorkerView[] | undefined;
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(opts: ProgressStateOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.startedAt = this.now();
  }

  apply(e: BatchEvent): void {
    if (e.type === "planned") {
      this.unit = e.attempts !== undefined && e.attempts > 1 ? "attempts" : "instances";
      this.total = e.total;
      this.skipped = e.skipped;
      this.todo = e.todo;
    } else if (e.type === "attempt_added") {
      this.total++;
      this.todo++;
    } else if (e.type === "attempt_skipped") {
      this.total--;
      this.todo--;
    } else if (e.type === "instance_start") {
      const worker = e.worker ? { worker: `${e.worker.host}:${e.worker.pid}` } : {};
      const key = unitKey(e.instance_id, e.attempt);
      this.running.set(key, { id: key, step: 0, startedAt: this.now(), ...worker });
    } else if (e.type === "agent") {
      const u = usageOf(e.event);
      const key = unitKey(e.instance_id, e.attempt);
      const r = this.running.get(key);
      // A remote worker reports its calls, not its messages: either moves the step on.
      if (r && (e.event.type === "message" || e.event.type === "model_call"))
        r.step = Math.max(r.step, e.event.step);
      if (r && e.event.type === "model_retry") {
        const { tryNumber, maxTries, reason, waitSeconds } = e.event;
        r.retry = { until: this.now() + waitSeconds * 1000, tryNumber, maxTries, reason };
      } else if (r && (e.event.type === "model_call" || e.event.type === "exit")) delete r.retry;
      if (!u) return;
      this.usage.add(u, key);
    } else if (e.type === "instance_end") {
      const o = e.outcome;
      const key = unitKey(o.instance_id, o.attempt_number);
      // What its events did not report (a remote worker's progress lost on the way) is added now.
      this.usage.settle(key, o);
      this.running.delete(key);
      this.doneNow++;
      if (!(e.again ?? mustRunAgain(e.outcome.exit_status, e.outcome.model_error))) this.finishedNow++;
      this.counts[e.outcome.exit_status] = (this.counts[e.outcome.exit_status] ?? 0) + 1;
    } else if (e.type === "stopping") {
      this.stopping = e.reason;
    } else if (e.type === "workers") {
      this.workers = e.workers.map((w) => ({ ...w }));
    }
  }

  /** The progress as of the clock's now. */
  snapshot(): ProgressSnapshot {
    const elapsed = Math.max(0.001, (this.now() - this.startedAt) / 1000);
    const perHour = this.finishedNow > 0 ? (this.finishedNow / elapsed) * 3600 : 0;
    const remaining = Math.max(0, this.todo - this.doneNow);
    return {
      unit: this.unit,
      total: this.total,
      skipped: this.skipped,
      doneNow: this.doneNow,
      running: [...this.running.values()].map((r) => ({ ...r })),
      counts: { ...this.counts },
      totals: { ...this.usage.total },
      elapsedSeconds: elapsed,
      perHour,
      etaSeconds: perHour > 0 ? (remaining / perHour) * 3600 : null,
      stopping: this.stopping,
      ...(this.workers ? { workers: this.workers.map((w) => ({ ...w })) } : {}),
    };
  }
}
