import type { AgentEvent } from "../agent/agent.js";
import { sumStats } from "../agent/model-stats.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import type { Model } from "../models/types.js";
import { BatchBudget } from "./budget.js";
import { createLocalDispatcher } from "./local-dispatch.js";
import { RunFolder } from "./run-folder.js";
import {
  type BatchEvent,
  type BatchResult,
  type Dispatcher,
  type DispatchHooks,
  type EnvironmentOpener,
  type InstanceResult,
  type StopReason,
  type TaskOutcome,
  unitKey,
  type WorkUnit,
} from "./types.js";
import { usageOf } from "./usage.js";

export { OUTAGE_LIMIT } from "./run-folder.js";

/** What a batch run needs. Only `config`, `instances` and `outputDir` are required. */
export interface BatchOptions {
  /** The resolved config every instance runs with (recorded, secrets redacted, in run.json). */
  config: Config;
  /** The selected rows, in the order they are started. */
  instances: SwebenchInstance[];
  /** The run folder (README.md "Outputs", src/batch/README.md). */
  outputDir: string;
  /** Instances run at once (default 1). */
  workers?: number;
  /** The model of one instance, or of one attempt of it (default: `createModel` of the attempt's `model` config). */
  modelFor?: (row: SwebenchInstance, attempt?: number) => Model;
  /** Opens the environment of one instance (default: `openInstanceEnvironment` with `reposDir`). */
  openEnvironment?: EnvironmentOpener;
  /** Folder of `owner__repo` clones for the local and bwrap environments. */
  reposDir?: string;
  /** Run every selected instance again, even those with a final exit status. */
  redoExisting?: boolean;
  /**
   * Resume a folder whose results came from another config (see config-drift.ts); without it that
   * is a BatchInputError listing the changes.
   */
  allowConfigChange?: boolean;
  /** USD over all instances (this and earlier runs of the folder) after which nothing new starts; 0/undefined: none. */
  costLimit?: number;
  /** Model calls over all instances after which nothing new starts; 0/undefined: none. */
  callLimit?: number;
  /** Aborting stops launching instances and interrupts the running ones (saved as `Interrupted`). */
  signal?: AbortSignal;
  /** Receives progress: every agent event of every instance, and instance starts and ends. */
  onEvent?: (event: BatchEvent) => void;
  /** Receives warnings meant for the user (also written to run.log). */
  warn?: (message: string) => void;
  /** Extra facts for run.json (e.g. the command line, the dataset and selection). */
  runInfo?: Record<string, unknown>;
  /** Label of this run's containers (`patchloop.run`); default `swebench-<pid>-<time>`. Recorded in run.json. */
  runId?: string;
  /** Name of the model for preds.json (default `config.model.model_name`). */
  modelName?: string;
  /**
   * Where the instances run (default: in this process, `workers` at a time, see local-dispatch.ts);
   * the queue dispatcher (src/distributed/) hands them to `patchloop worker` processes. Called once
   * the folder is open and locked, with its run id.
   */
  dispatch?: (folder: RunFolder) => Promise<Dispatcher>;
}

/**
 * Runs the agent on every selected instance that has no final exit status yet (all of them with
 * `redoExisting`) into the run folder (run-folder.ts owns it: preds.json, run.json,
 * exit_statuses.yaml, run.log, resume rules). Instances run in this process, `workers` at a time,
 * or wherever `o.dispatch` sends them (a queue of remote workers). Starting stops at a cap, when
 * the model server is down, or when `signal` aborts (running instances are then interrupted and
 * save as `Interrupted`). Rejects only when a file cannot be written (or the folder cannot be
 * used: BatchInputError), after the running instances have stopped.
 */
export async function runBatch(o: BatchOptions): Promise<BatchResult> {
  const started = Date.now();
  const workers = Math.max(1, Math.floor(o.workers ?? 1));
  const modelName = o.modelName ?? o.config.model.model_name;
  const folder = await RunFolder.open({
    outputDir: o.outputDir,
    config: o.config,
    instances: o.instances,
    redoExisting: o.redoExisting,
    allowConfigChange: o.allowConfigChange,
    modelName,
    warn: o.warn,
    runInfo: {
      // a queue's run has no number of its own: whatever workers take its jobs run them
      ...(o.dispatch ? {} : { workers }),
      run_id: o.runId ?? `swebench-${process.pid}-${Date.now().toString(36)}`,
      ...o.runInfo,
    },
  });
  let dispatcher: Dispatcher;
  try {
    dispatcher = o.dispatch
      ? await o.dispatch(folder)
      : await createLocalDispatcher(
          {
            config: o.config,
            workers,
            reposDir: o.reposDir,
            modelFor: o.modelFor,
            openEnvironment: o.openEnvironment,
            runId: folder.runId,
            modelName,
            pending: folder.todo,
          },
          folder,
        );
  } catch (err) {
    await folder.abandon();
    throw err;
  }
  return new Scheduler(o, folder, dispatcher, modelName).run(started);
}

/** Resolves when one of the running instances ends (or at once when a slot is free). */
class Slots {
  private waiting: Array<() => void> = [];
  busy = 0;
  constructor(readonly size: number) {}
  async take(): Promise<void> {
    while (this.busy >= this.size) await new Promise<void>((r) => this.waiting.push(r));
    this.busy++;
  }
  give(): void {
    this.busy--;
    this.waiting.shift()?.();
  }
}

/** Starts the folder's instances on a dispatcher, records their results, and stops when it must. */
class Scheduler {
  private readonly budget: BatchBudget;
  private stoppedBy: StopReason = null;
  private fatal: Error | null = null;
  private warnedFree = false;
  private readonly outcomes: TaskOutcome[] = [];
  private readonly notStarted: string[] = [];
  /** Units that did not start (a cap, Ctrl-C, a drained queue), by key. */
  private readonly unitsNotStarted = new Set<string>();
  /** Attempts ended now that a re-run starts again. */
  private readonly again: string[] = [];
  /** Units handed to the dispatcher and not back yet, by unit key. */
  private readonly handedOver = new Map<string, WorkUnit>();
  /** Units whose instance the attempt policy stopped, being taken back from the dispatcher, with why. */
  private readonly takingBack = new Map<string, string>();
  /** Attempts the attempt policy did not start, with why. */
  private readonly stoppedAttempts: Record<string, string> = {};
  /** Units not started yet, in order. */
  private readonly queue: WorkUnit[] = [];
  /** What each running unit's model calls cost so far (the instance's cost limit counts it). */
  private readonly unitCost = new Map<string, number>();

  constructor(
    private readonly o: BatchOptions,
    private readonly folder: RunFolder,
    private readonly dispatcher: Dispatcher,
    private readonly modelName: string,
  ) {
    this.budget = new BatchBudget({ costLimit: o.costLimit, callLimit: o.callLimit }, folder.spent);
  }

  private emit(e: BatchEvent): void {
    this.o.onEvent?.(e);
  }

  async run(started: number): Promise<BatchResult> {
    const { folder, dispatcher } = this;
    // With attempts, progress counts attempts: those kept from earlier runs as done.
    const per = folder.attempts;
    const kept = Object.keys(folder.keptAttempts).length;
    this.emit(
      per === 1
        ? {
            type: "planned",
            total: this.o.instances.length,
            skipped: folder.skipped.length,
            todo: folder.todo.length,
          }
        : {
            type: "planned",
            total: kept + folder.todo.length,
            skipped: kept,
            todo: folder.todo.length,
            attempts: per,
          },
    );
    const onAbort = () => {
      this.stop("interrupted");
      dispatcher.interrupt();
    };
    if (this.o.signal?.aborted) onAbort();
    this.o.signal?.addEventListener("abort", onAbort, { once: true });
    const slots = new Slots(dispatcher.slots);
    const queue = this.queue;
    queue.push(...folder.todo);
    const running = new Set<Promise<void>>();
    try {
      while (queue.length > 0 || running.size > 0) {
        if (queue.length === 0) {
          // What runs may add replacement attempts.
          await Promise.race(running);
          continue;
        }
        await slots.take();
        const unit = queue.shift();
        if (unit === undefined) {
          // the attempt policy took what was queued off while this waited for a slot
          slots.give();
          continue;
        }
        if (!this.mayStart()) {
          slots.give();
          this.notStart([unit, ...queue.splice(0)]);
          continue;
        }
        const why = folder.whyNotStart(unit);
        if (why !== null) {
          slots.give();
          this.skipAttempt(unit, why);
          continue;
        }
        folder.started(unit);
        const p: Promise<void> = this.runOne(unit)
          .then((ended) => {
            // Replacements of a failed attempt run next, beside its instance's other attempts.
            if (ended) queue.unshift(...folder.replacementsAfter(unit));
          })
          .finally(() => {
            slots.give();
            running.delete(p);
          });
        running.add(p);
      }
    } finally {
      this.o.signal?.removeEventListener("abort", onAbort);
      await dispatcher.close();
    }
    await folder.close({
      stoppedBy: this.stoppedBy,
      ran: this.outcomes.length,
      notStarted: this.notStarted.length,
    });
    if (this.fatal) throw this.fatal;
    return this.result(started);
  }

  private mayStart(): boolean {
    if (this.stoppedBy === "interrupted" || this.fatal || this.stoppedBy === "model_unavailable")
      return false;
    const cap = this.budget.exhausted();
    if (cap) this.stop(cap);
    return cap === null;
  }

  private stop(reason: Exclude<StopReason, null>): void {
    if (this.stoppedBy === "interrupted" || this.stoppedBy === reason) return;
    this.stoppedBy = reason;
    this.folder.log(`stopping: ${reason}; no new instance starts`);
    this.emit({ type: "stopping", reason });
    void this.dispatcher.stopStarting();
  }

  /** Units that will not start now: their instances are listed as not started (once each). */
  private notStart(units: WorkUnit[]): void {
    for (const u of units) {
      this.unitsNotStarted.add(unitKey(u.row.instance_id, u.attempt));
      if (!this.notStarted.includes(u.row.instance_id)) this.notStarted.push(u.row.instance_id);
    }
  }

  /**
   * Takes the queued attempts of instance `id` that the attempt policy no longer starts off the
   * queue, and asks the dispatcher to take back those it was handed but has not started (a queue's
   * waiting jobs: attempts 2..N are enqueued as soon as attempt 1 is answered).
   */
  private dropStopped(id: string): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const u = this.queue[i];
      if (u.row.instance_id !== id || u.attempt === undefined) continue;
      const why = this.folder.whyNotStart(u);
      if (why === null) continue;
      this.queue.splice(i, 1);
      this.skipAttempt(u, why);
    }
    const takeBack = this.dispatcher.takeBack?.bind(this.dispatcher);
    if (!takeBack) return;
    for (const [key, u] of this.handedOver) {
      if (u.row.instance_id !== id || u.attempt === undefined || this.takingBack.has(key)) continue;
      const why = this.folder.stopReason(u);
      if (why === null) continue;
      this.takingBack.set(key, why);
      void takeBack(u).then(
        (taken) => {
          if (!taken) this.takingBack.delete(key);
        },
        () => this.takingBack.delete(key),
      );
    }
  }

  /** An attempt the attempt policy does not start: the console and the progress hear why. */
  private skipAttempt(unit: WorkUnit, reason: string): void {
    if (unit.attempt === undefined) return;
    this.stoppedAttempts[unitKey(unit.row.instance_id, unit.attempt)] = reason;
    this.folder.stopped(unit, reason);
    this.emit({ type: "attempt_skipped", instance_id: unit.row.instance_id, attempt: unit.attempt, reason });
  }

  /** The scheduler's hooks for one unit's progress: events (and the caps' counts) under its key. */
  private hooksFor(unit: WorkUnit, answered: () => void): DispatchHooks {
    const id = unit.row.instance_id;
    const key = unitKey(id, unit.attempt);
    const attempt = unit.attempt !== undefined ? { attempt: unit.attempt } : {};
    return {
      onStart: (worker) =>
        this.emit({ type: "instance_start", instance_id: id, ...attempt, ...(worker ? { worker } : {}) }),
      onAgentEvent: (event: AgentEvent) => {
        const u = usageOf(event);
        if (u) {
          this.budget.add(u, key);
          if (unit.attempt !== undefined) {
            const spent = (this.unitCost.get(key) ?? 0) + u.cost;
            this.unitCost.set(key, spent);
            this.folder.spending(unit, spent);
          }
          // A cap reached while instances still wait in a queue withdraws them.
          if (this.budget.exhausted()) this.mayStart();
        }
        if (event.type === "model_call") answered();
        this.emit({ type: "agent", instance_id: id, ...attempt, event });
      },
    };
  }

  /**
   * With several attempts per instance, the first attempt of an instance to start in this run
   * goes alone until its first request is answered (or it ends): the server's prefix cache then
   * holds the prompt the attempts share (system message, task, localization), and the others'
   * first requests are served from it instead of all prefilling it at once. Returns what to call
   * when this unit's first request is answered.
   */
  private async waitForPrefix(unit: WorkUnit): Promise<() => void> {
    if (unit.attempt === undefined) return () => {};
    const id = unit.row.instance_id;
    const first = this.firstAnswers.get(id);
    if (first) {
      await first;
      return () => {};
    }
    let answered = () => {};
    this.firstAnswers.set(id, new Promise<void>((r) => (answered = r)));
    return answered;
  }
  private readonly firstAnswers = new Map<string, Promise<void>>();

  /**
   * Runs one unit and records its result; a failure to write the folder stops the batch. Resolves
   * true when a result was recorded.
   */
  private async runOne(unit: WorkUnit): Promise<boolean> {
    const id = unit.row.instance_id;
    const key = unitKey(id, unit.attempt);
    let result: InstanceResult | null = null;
    const answered = await this.waitForPrefix(unit);
    try {
      if (!this.mayStart()) {
        this.notStart([unit]);
        return false;
      }
      this.handedOver.set(key, unit);
      try {
        result = await this.dispatcher.run(unit, this.hooksFor(unit, answered));
      } finally {
        this.handedOver.delete(key);
      }
      if (!result) {
        const why = this.takingBack.get(key);
        if (why !== undefined) this.skipAttempt(unit, this.folder.whyNotStart(unit) ?? why);
        else this.notStart([unit]);
        return false;
      }
      const recorded = await this.folder.accept(result);
      await this.dispatcher.settle(result, true);
      this.unitCost.delete(key);
      if (!recorded) return false;
      const { outcome, again, replacedBy } = recorded;
      this.budget.settle(key, outcome);
      this.outcomes.push(outcome);
      if (again && unit.attempt !== undefined) this.again.push(key);
      if (this.folder.serverDown) this.stop("model_unavailable");
      else if (this.budget.exhausted()) this.mayStart();
      this.checkFree(outcome);
      // Attempts the policy now stops (agreement, cost) leave the queue before the line is printed,
      // and a replacement is counted before it: the line's total is what will run.
      this.dropStopped(id);
      if (replacedBy !== undefined && unit.attempt !== undefined)
        this.emit({ type: "attempt_added", instance_id: id, attempt: replacedBy, replaces: unit.attempt });
      this.emit({
        type: "instance_end",
        outcome,
        again,
        ...(replacedBy !== undefined ? { replacedBy } : {}),
      });
      return true;
    } catch (err) {
      if (result) await this.dispatcher.settle(result, false).catch(() => undefined);
      this.fatal ??= err as Error;
      this.folder.log(`FATAL ${key}: ${(err as Error).message}`);
      this.stop("interrupted");
      this.dispatcher.interrupt();
      return false;
    } finally {
      answered();
    }
  }

  /**
   * A cost cap (--cost-limit, run.attempt_policy.cost_limit) on a model whose calls cost nothing
   * can never stop the run: say so once, naming each cap.
   */
  private checkFree(outcome: TaskOutcome): void {
    const perInstance = this.o.config.run.attempts > 1 ? this.o.config.run.attempt_policy.cost_limit : 0;
    const caps = [
      ...(this.o.costLimit ? [`--cost-limit ${this.o.costLimit}`] : []),
      ...(perInstance > 0 ? [`run.attempt_policy.cost_limit ${perInstance}`] : []),
    ];
    if (this.warnedFree || caps.length === 0 || outcome.api_calls === 0 || this.budget.total.cost > 0) return;
    this.warnedFree = true;
    this.folder.warn(
      `${caps.join(" and ")} cannot stop this run: its model calls cost $0 (no price is known for ` +
        `${this.modelName}). Set model.price {input_per_mtok, output_per_mtok}, or use --call-limit.`,
    );
  }

  private result(started: number): BatchResult {
    return {
      outcomes: this.outcomes,
      skipped: this.folder.skipped,
      notStarted: this.notStarted,
      stoppedBy: this.stoppedBy,
      statuses: this.folder.statuses,
      pending: this.folder.pendingIds(),
      infrastructure: this.folder.infrastructureIds(),
      totals: sumStats(this.outcomes),
      wallSeconds: (Date.now() - started) / 1000,
      ...(this.folder.attempts > 1
        ? {
            attempts: {
              perInstance: this.folder.attempts,
              kept: { ...this.folder.keptAttempts },
              again: [...this.again],
              notStarted: this.unitsNotStarted.size,
              stopped: { ...this.stoppedAttempts },
            },
          }
        : {}),
    };
  }
}
