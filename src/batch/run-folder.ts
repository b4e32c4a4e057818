import { existsSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ModelStats } from "../agent/model-stats.js";
import type { ExitStatus } from "../agent/trajectory-types.js";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { BatchInputError } from "../run-folder/errors.js";
import { checkInstanceIds } from "../run-folder/instance-ids.js";
import { lockRunFolder } from "../run-folder/lock.js";
import { PredsFile, PredsFileError, predOf } from "../run-folder/preds-file.js";
import {
  attemptNumbers,
  mustRunAgain,
  type PriorState,
  readPriorState,
  trajectoryPathFor,
} from "../run-folder/resume.js";
import { RunLog } from "../run-folder/run-log.js";
import { recordOf, type TaskOutcome } from "../task/outcome.js";
import { removeStaleTempFiles, writeFileAtomic } from "../util/atomic-write.js";
import type { InstanceAttempts } from "./attempt-policy.js";
import { checkConfigDrift } from "./config-drift.js";
import { earlierSpend, isOutage, OUTAGE_LIMIT, outageRuns, type Plan, planRun, priorOf } from "./run-plan.js";
import { type InstanceRecord, RunRecord } from "./run-record.js";
import {
  type InstanceResult,
  type InstanceSink,
  type ReplicaCounts,
  type StopReason,
  unitKey,
  type WorkUnit,
} from "./types.js";

export { MAX_OUTAGE_RUNS, OUTAGE_LIMIT } from "./run-plan.js";

/** What opening a run folder needs. */
export interface RunFolderOptions {
  outputDir: string;
  config: Config;
  /** The selected rows, in the order given. */
  instances: SwebenchInstance[];
  redoExisting?: boolean;
  allowConfigChange?: boolean;
  /** `model_name_or_path` in preds.json. */
  modelName: string;
  /** Facts for run.json `info` (argv, dataset, selection, limits, workers, run id). */
  runInfo: Record<string, unknown>;
  /** Warnings for the person (they also go to run.log). */
  warn?: (message: string) => void;
}

/** What the folder made of one result. */
export interface Recorded {
  outcome: TaskOutcome;
  /**
   * The unit must run again (Interrupted, EnvironmentError, ModelError after retries; with
   * attempts, such a failure that no replacement covers).
   */
  again: boolean;
  /** The attempt that replaces this failed one (run.attempt_policy.replace_failed). */
  replacedBy?: number;
}

/** The folder's preds.json; one that cannot be read is a BatchInputError (it is never overwritten). */
function openPreds(dir: string): PredsFile {
  try {
    return new PredsFile(dir);
  } catch (err) {
    if (err instanceof PredsFileError) throw new BatchInputError(err.message);
    throw err;
  }
}

/**
 * The units a run folder holds for its rows: each instance, or with `attempts` above 1 its
 * attempts 1..N and any replacement attempts (N+1, ...) an earlier run started.
 */
function unitsOf(rows: SwebenchInstance[], outputDir: string, attempts: number): WorkUnit[] {
  if (attempts === 1) return rows.map((row) => ({ row }));
  return rows.flatMap((row) => {
    const last = Math.max(attempts, ...attemptNumbers(outputDir, row.instance_id));
    return Array.from({ length: last }, (_, i) => ({ row, attempt: i + 1 }));
  });
}

/** Reads every unit's trajectory, a few at a time, by unit key. */
async function readPriors(units: WorkUnit[], outputDir: string): Promise<Map<string, PriorState>> {
  const priors = new Map<string, PriorState>();
  let next = 0;
  const reader = async () => {
    while (next < units.length) {
      const { row, attempt } = units[next++];
      priors.set(
        unitKey(row.instance_id, attempt),
        await readPriorState(outputDir, row.instance_id, attempt),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, reader));
  return priors;
}

/** A file name a remote worker may hand back for an instance's folder: a plain name, no path. */
const SAFE_FILE = /^[A-Za-z0-9._-]+$/;

/**
 * The run folder of `patchloop swebench` (README.md here, and the project README's "Outputs"), and the
 * only code that writes it: preds.json, run.json, exit_statuses.yaml and run.log, the paths of the
 * trajectories, what earlier runs left (prior state, earlier spend) and the policies built on it
 * (which units run again, in which order, when a server outage makes a ModelError final, when
 * the server is down, which attempt stands for an instance). A unit is an instance, or one of its
 * attempts with `run.attempts` above 1 (`DIR/<id>/attempt-<k>/`, docs/attempts.md). Results come
 * in as `InstanceResult` (a TaskOutcome), the same from this process and from remote workers, and
 * are accepted once per unit and queue delivery (`dropReason`: the only place that rule lives; a
 * queue's coordinator asks it too).
 */
export class RunFolder implements InstanceSink {
  readonly dir: string;
  /** What runs now, instances that never ran first; an instance's attempts together, in order. */
  readonly todo: WorkUnit[];
  /** Instances with a final exit status from earlier runs (every attempt final). */
  readonly skipped: string[];
  /** Exit status of every selected instance that has one (earlier runs, then this one). */
  readonly statuses: Record<string, ExitStatus> = {};
  /** Model calls and USD the folder spent before this run (what the caps start from). */
  readonly spent: Pick<ModelStats, "api_calls" | "cost">;
  readonly runId: string;
  /** Attempts per instance (`run.attempts`); 1: the folder has no attempt folders. */
  readonly attempts: number;
  /**
   * With attempts: every selected instance's attempts with a final status that this run does not
   * run (kept from earlier runs), by unit key; empty with one attempt per instance (`skipped` says it).
   */
  readonly keptAttempts: Readonly<Record<string, ExitStatus>>;
  private readonly pending: Set<string>;
  private readonly todoIds: Set<string>;
  private readonly accepted = new Set<string>();
  private readonly retired = new Set<string>();
  private readonly replicas: Record<string, ReplicaCounts> = {};
  private readonly perInstance: Map<string, InstanceAttempts>;
  private readonly stopLogged = new Set<string>();
  private outagesInARow = 0;

  private constructor(
    private readonly o: RunFolderOptions,
    private readonly record: RunRecord,
    private readonly preds: PredsFile,
    private readonly runLog: RunLog,
    private readonly priors: Map<string, PriorState>,
    private readonly release: () => void,
    plan: Plan,
  ) {
    this.dir = resolve(o.outputDir);
    this.attempts = o.config.run.attempts;
    this.todo = plan.todo;
    this.skipped = plan.skipped;
    this.spent = plan.spent;
    this.perInstance = plan.perInstance;
    this.keptAttempts = plan.keptAttempts;
    this.pending = new Set(plan.todo.map((u) => unitKey(u.row.instance_id, u.attempt)));
    this.todoIds = new Set(this.pending);
    this.runId = String(o.runInfo.run_id);
  }

  /**
   * Opens (creates) the folder for a run: locks it, refuses another config's results unless
   * allowed, removes temp files of killed writers, reads what earlier runs left and plans. Throws
   * BatchInputError for a folder that cannot be used (nothing is changed then).
   */
  static async open(o: RunFolderOptions): Promise<RunFolder> {
    const dir = resolve(o.outputDir);
    checkInstanceIds(o.instances);
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new BatchInputError(`${dir} is not a folder: give -o a folder (new or of an earlier run)`);
    mkdirSync(dir, { recursive: true });
    const release = lockRunFolder(dir);
    try {
      const earlier = checkConfigDrift(dir, o.config, o.allowConfigChange ?? false);
      removeStaleTempFiles(dir);
      const preds = openPreds(dir);
      const info = earlier.length > 0 ? { ...o.runInfo, earlier_configs: earlier } : o.runInfo;
      const record = new RunRecord(dir, o.config, info);
      const log = new RunLog(dir, { config: o.config });
      const units = unitsOf(o.instances, dir, o.config.run.attempts);
      const priors = await readPriors(units, dir);
      const attempts = o.config.run.attempts;
      const plan = planRun({
        instances: o.instances,
        units,
        priors,
        records: attempts > 1 ? record.attemptRecords() : record.data.instances,
        attempts,
        policy: o.config.run.attempt_policy,
        redo: o.redoExisting ?? false,
      });
      for (const note of plan.notes) log.line(note);
      const folder = new RunFolder(o, record, preds, log, priors, release, plan);
      await folder.start();
      return folder;
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Restores what a killed run left half done, records the kept statuses, writes the first state. */
  private async start(): Promise<void> {
    const { o, record, preds } = this;
    for (const id of this.skipped) {
      const chosen = this.standIn(id);
      if (!chosen) continue;
      this.statuses[id] = chosen.status;
      // A run killed between its last trajectory save and preds.json: the trajectory has the patch.
      if (!preds.has(id)) void preds.set(predOf({ instance_id: id, patch: chosen.submission }, o.modelName));
      const known = record.data.instances[id];
      if (!known || known.exit_status !== chosen.status)
        record.set(id, {
          exit_status: chosen.status,
          api_calls: chosen.stats.api_calls,
          cost: chosen.stats.cost,
        });
    }
    for (const u of this.todo) {
      const key = unitKey(u.row.instance_id, u.attempt);
      const problem = this.priors.get(key)?.problem;
      if (problem) this.log(`${key}: ${problem}; running it again`);
    }
    record.data.selected = o.instances.length;
    record.data.skipped = this.skipped.length;
    await Promise.all([preds.flush(), record.save()]);
    // a queue's run (no `workers`) runs on however many workers take its jobs
    const where = o.runInfo.workers === undefined ? "workers of the queue" : `${o.runInfo.workers} workers`;
    const toRun = new Set(this.todo.map((u) => u.row.instance_id)).size;
    const attempts =
      this.attempts > 1 ? ` (${this.todo.length} attempts, ${this.attempts} per instance)` : "";
    this.log(
      `batch: ${o.instances.length} selected, ${this.skipped.length} with a final status kept, ${toRun} to run${attempts}, ` +
        `${where}, model ${o.modelName}, environment ${o.config.environment.environment_class}`,
    );
  }

  /**
   * The prior state that stands for an instance an earlier run finished: its trajectory, or with
   * attempts the one InstanceAttempts.chosen names; undefined when none has a status.
   */
  private standIn(id: string): (PriorState & { status: ExitStatus }) | undefined {
    const k = this.attempts > 1 ? this.perInstance.get(id)?.chosen()?.attempt : undefined;
    if (this.attempts > 1 && k === undefined) return undefined;
    const prior = this.priors.get(unitKey(id, k));
    return prior?.status ? (prior as PriorState & { status: ExitStatus }) : undefined;
  }

  log(line: string): void {
    this.runLog.line(line);
  }

  warn(message: string): void {
    this.runLog.line(`WARNING: ${message}`);
    this.o.warn?.(message);
  }

  /** `DIR/<id>/<id>.traj.json`, or `DIR/<id>/attempt-<k>/<id>.traj.json` for attempt k. */
  trajectoryPath(id: string, attempt?: number): string {
    return trajectoryPathFor(this.dir, id, attempt);
  }

  /** Sets a fact of run.json `info` (e.g. the queue the run goes through) and writes run.json at once. */
  async recordInfo(key: string, value: unknown): Promise<void> {
    this.record.data.info[key] = value;
    await this.record.save();
  }

  /** The run id an earlier run of this folder recorded under `info[key]` (e.g. its queue run). */
  earlierInfo(key: string): unknown {
    return this.record.previousInfo[key];
  }

  /** The run.json record of a unit: `instances[id]`, or with attempts `attempts["<id>/attempt-<k>"]`. */
  private unitRecord(key: string): InstanceRecord | undefined {
    return this.attempts > 1 ? this.record.attemptRecords()[key] : this.record.data.instances[key];
  }

  private setUnitRecord(key: string, r: InstanceRecord): void {
    if (this.attempts > 1) this.record.setAttempt(key, r);
    else this.record.set(key, r);
  }

  /**
   * The unit's trajectory is about to be replaced: what its earlier run spent moves to run.json
   * (`earlier_calls`, `earlier_cost`), so that the caps still count it. Once per unit.
   */
  async retire(unit: WorkUnit): Promise<void> {
    const key = unitKey(unit.row.instance_id, unit.attempt);
    if (this.retired.has(key)) return;
    this.retired.add(key);
    const prior = this.priors.get(key);
    if (!prior || (prior.stats.api_calls === 0 && prior.stats.cost === 0)) return;
    const known = this.unitRecord(key);
    const e = earlierSpend(known);
    this.setUnitRecord(key, {
      ...(known ?? { exit_status: prior.status ?? "Interrupted", api_calls: 0, cost: 0 }),
      earlier_calls: e.calls + prior.stats.api_calls,
      earlier_cost: e.cost + prior.stats.cost,
    });
    await this.record.save();
  }

  /** The queue delivery whose result run.json holds for a unit (remote runs), if any. */
  private recordedDelivery(key: string): string | undefined {
    const r = this.unitRecord(key);
    return r && "delivery" in r ? r.delivery : undefined;
  }

  /**
   * Why a result of unit `key` (`<id>` or `<id>/attempt-<k>`; of queue delivery `delivery`, for a
   * remote one) would be dropped, or null when it would be recorded: one result per unit in a run,
   * of a unit this run runs, and never a queue delivery the folder holds already (a result sent
   * again after a coordinator was killed).
   */
  dropReason(key: string, delivery: string | undefined): string | null {
    if (delivery !== undefined && delivery === this.recordedDelivery(key))
      return "the folder holds it already";
    if (this.accepted.has(key)) return "this run has its result already";
    if (!this.todoIds.has(key)) return "it is not part of this run";
    return null;
  }

  /** Whether the model server is taken to be down (OUTAGE_LIMIT instances in a row ran out of retries). */
  get serverDown(): boolean {
    return this.outagesInARow >= OUTAGE_LIMIT;
  }

  /**
   * Whether a unit may start now: always for an instance's one run; an attempt, while
   * run.attempt_policy lets its instance have more (run.log says once why not).
   */
  mayStart(unit: WorkUnit): boolean {
    return this.whyNotStart(unit) === null;
  }

  /**
   * Null when a unit may start now; else why not (the attempt policy stopped its instance's
   * attempts), and the unit is no longer pending (run.log says why once per instance).
   */
  whyNotStart(unit: WorkUnit): string | null {
    const tries = this.perInstance.get(unit.row.instance_id);
    if (!tries || unit.attempt === undefined || tries.mayStart(unit.attempt)) return null;
    this.pending.delete(unitKey(unit.row.instance_id, unit.attempt));
    const why = tries.stopReason() ?? "its attempts ended";
    if (!this.stopLogged.has(unit.row.instance_id)) {
      this.stopLogged.add(unit.row.instance_id);
      this.log(`${unit.row.instance_id}: no further attempt starts: ${why}`);
    }
    return why;
  }

  /**
   * Why the attempt policy would not start `unit` now (its instance's attempts stopped: cost,
   * agreement), or null; for a unit handed to a queue and not started yet. Unlike `whyNotStart`,
   * changes nothing.
   */
  stopReason(unit: WorkUnit): string | null {
    const tries = this.perInstance.get(unit.row.instance_id);
    return tries && unit.attempt !== undefined ? tries.stopReason() : null;
  }

  /** A running attempt has spent `cost` so far: its instance's cost limit counts it. */
  spending(unit: WorkUnit, cost: number): void {
    if (unit.attempt !== undefined) this.perInstance.get(unit.row.instance_id)?.spending(unit.attempt, cost);
  }

  /** A unit starts now (the attempt policy counts it). */
  started(unit: WorkUnit): void {
    if (unit.attempt === undefined) return;
    this.perInstance.get(unit.row.instance_id)?.start(unit.attempt);
    this.record.unstop(unitKey(unit.row.instance_id, unit.attempt));
  }

  /** The attempt policy does not start `unit`: run.json's `stopped_attempts` says so, and why. */
  stopped(unit: WorkUnit, reason: string): void {
    if (unit.attempt !== undefined)
      this.record.stopAttempt(unitKey(unit.row.instance_id, unit.attempt), reason);
  }

  /**
   * Attempts the policy adds once `unit` ended (replacements of failed attempts, numbered past
   * N) that are not planned yet; none with one attempt per instance.
   */
  replacementsAfter(unit: WorkUnit): WorkUnit[] {
    const id = unit.row.instance_id;
    const tries = this.perInstance.get(id);
    if (!tries) return [];
    const out: WorkUnit[] = [];
    for (const k of tries.replacements()) {
      const key = unitKey(id, k);
      if (this.todoIds.has(key) || this.priors.has(key)) continue;
      this.todoIds.add(key);
      this.pending.add(key);
      out.push({ row: unit.row, attempt: k });
    }
    return out;
  }

  /**
   * Records one unit's result: its files (remote), preds.json, run.json and exit_statuses.yaml,
   * a line in run.log. Returns null, writing nothing, for a result `dropReason` drops (a unit not
   * part of this run, or one with a result already: results are accepted once). With attempts,
   * preds.json and the instance's line in run.json hold the attempt that stands for it
   * (InstanceAttempts.chosen) until a selection picks one.
   */
  async accept(result: InstanceResult): Promise<Recorded | null> {
    const { outcome } = result;
    const id = outcome.instance_id;
    const key = unitKey(id, outcome.attempt_number);
    const why = this.dropReason(key, outcome.delivery);
    if (why) {
      this.log(`${key}: a result of delivery ${outcome.delivery ?? "?"} was dropped: ${why}`);
      return null;
    }
    this.accepted.add(key);
    if (result.files) await this.writeFiles(id, outcome.attempt_number, result.files);
    if (outcome.masked_lines)
      this.warn(
        `${key}: ${outcome.masked_lines} line(s) of the patch held a secret value and were masked as *** in preds.json`,
      );
    addCounts(this.replicas, result.replicas ?? {});
    const tries = this.perInstance.get(id);
    // With attempts, the policy decides whether a failure runs again or a replacement covers it.
    const policy =
      tries && outcome.attempt_number !== undefined
        ? tries.end({
            ...outcome,
            attempt: outcome.attempt_number,
            again: mustRunAgain(outcome.exit_status, outcome.model_error),
          })
        : { again: mustRunAgain(outcome.exit_status, outcome.model_error) };
    const { again } = policy;
    if (!again) this.pending.delete(key);
    this.outagesInARow = isOutage(outcome) ? this.outagesInARow + 1 : 0;
    const before = this.unitRecord(key);
    const e = earlierSpend(before);
    this.setUnitRecord(key, {
      ...recordOf(outcome),
      ...(isOutage(outcome) ? { model_error_runs: outageRuns(before) + 1 } : {}),
      ...(e.calls > 0 || e.cost > 0 ? { earlier_calls: e.calls, earlier_cost: e.cost } : {}),
      ...(policy.replacedBy !== undefined ? { replaced_by: policy.replacedBy } : {}),
    });
    if (tries && outcome.attempt_number !== undefined) {
      this.priors.set(key, priorOf(outcome));
      await this.recordInstance(id, tries, outcome);
    } else {
      await this.preds.set(predOf(outcome, this.o.modelName));
      this.statuses[id] = outcome.exit_status;
    }
    this.record.data.replicas = { ...this.replicas };
    await this.record.save();
    this.log(
      `end ${key} ${outcome.exit_status} (${outcome.api_calls} calls, $${outcome.cost.toFixed(4)}, ` +
        `${outcome.seconds}s, patch ${outcome.patch_bytes} bytes${result.worker ? `, worker ${result.worker.id}` : ""}): ` +
        outcome.exit_message +
        (policy.replacedBy !== undefined
          ? `; attempt ${policy.replacedBy} replaces it (run.attempt_policy.replace_failed)`
          : ""),
    );
    return { outcome, again, ...(policy.replacedBy !== undefined ? { replacedBy: policy.replacedBy } : {}) };
  }

  /**
   * An instance's line in run.json, preds.json and its status, from the attempt that stands for
   * it; while none has a final status (every attempt so far must run again), from the attempt that
   * just ended, as with one attempt per instance (no `standing_attempt` then).
   */
  private async recordInstance(id: string, tries: InstanceAttempts, latest: TaskOutcome): Promise<void> {
    const chosen = tries.chosen() ?? {
      attempt: undefined,
      exit_status: latest.exit_status,
      patch: latest.patch,
    };
    const mine = Object.entries(this.record.attemptRecords()).filter(([k]) => k.startsWith(`${id}/attempt-`));
    const sum = (f: "api_calls" | "cost") => mine.reduce((a, [, r]) => a + (Number(r[f]) || 0), 0);
    this.statuses[id] = chosen.exit_status;
    // an infrastructure failure stands for the instance as it is recorded (report shows it apart)
    const standing =
      chosen.attempt !== undefined
        ? mine.find(([k]) => k === `${id}/attempt-${chosen.attempt}`)?.[1]
        : latest;
    const infrastructure = !!standing && "infrastructure" in standing && standing.infrastructure === true;
    this.record.set(id, {
      exit_status: chosen.exit_status,
      api_calls: sum("api_calls"),
      cost: sum("cost"),
      ...(chosen.attempt !== undefined ? { standing_attempt: chosen.attempt } : {}),
      ...(infrastructure ? { infrastructure: true } : {}),
    });
    await this.preds.set(predOf({ instance_id: id, patch: chosen.patch }, this.o.modelName));
  }

  /** A remote worker's files of a unit, written into its folder (earlier spend retired first). */
  private async writeFiles(
    id: string,
    attempt: number | undefined,
    files: Record<string, string>,
  ): Promise<void> {
    const key = unitKey(id, attempt);
    const unit = this.todo.find((u) => u.row.instance_id === id && u.attempt === attempt);
    if (unit) await this.retire(unit);
    for (const [name, text] of Object.entries(files)) {
      if (!SAFE_FILE.test(name) || name === "." || name === "..") {
        this.log(
          `${key}: a file named ${JSON.stringify(name)} from the worker was not written (not a plain file name)`,
        );
        continue;
      }
      await writeFileAtomic(join(this.dir, key, name), text);
    }
  }

  /** Selected instances a re-run of the same command runs again (a unit not started, or ended so). */
  /** Instances whose line in run.json is an infrastructure failure (the summary counts them apart). */
  infrastructureIds(): string[] {
    const lines = this.record.data.instances;
    return this.o.instances
      .map((r) => r.instance_id)
      .filter((id) => {
        const line = lines[id];
        return !!line && "infrastructure" in line && line.infrastructure === true;
      });
  }

  pendingIds(): string[] {
    const ids = new Set([...this.pending].map((k) => k.replace(/\/attempt-\d+$/, "")));
    return this.o.instances.map((r) => r.instance_id).filter((id) => ids.has(id));
  }

  /** Writes the final run.json (state, stopped_by, replica counts), closes run.log and unlocks. */
  async close(summary: { stoppedBy: StopReason; ran: number; notStarted: number }): Promise<void> {
    try {
      this.record.data.replicas = { ...this.replicas };
      if (Object.keys(this.record.data.replicas).length === 0) delete this.record.data.replicas;
      await this.record.finish(summary.stoppedBy);
      this.log(
        `batch ended: ${summary.ran} run, ${summary.notStarted} not started${summary.stoppedBy ? `, stopped by ${summary.stoppedBy}` : ""}`,
      );
      await this.runLog.close();
    } finally {
      this.release();
    }
  }

  /** Unlocks without writing (the run could not start). */
  abandon(): Promise<void> {
    this.release();
    return this.runLog.close();
  }
}

/** Adds `more` to `into`, replica by replica. */
function addCounts(into: Record<string, ReplicaCounts>, more: Record<string, ReplicaCounts>): void {
  for (const [url, c] of Object.entries(more)) {
    const t = into[url] ?? { requests: 0, failures: 0 };
    t.requests += c.requests;
    t.failures += c.failures;
    into[url] = t;
  }
}
