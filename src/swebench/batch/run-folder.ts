import { existsSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ExitStatus } from "../../agent/trajectory-types.js";
import type { Config } from "../../config/schema.js";
import { recordOf, type TaskOutcome } from "../../task/outcome.js";
import { PredsFile, PredsFileError, predOf } from "../../task/preds-file.js";
import { removeStaleTempFiles, writeFileAtomic } from "../../util/atomic-write.js";
import type { SwebenchInstance } from "../types.js";
import { checkConfigDrift } from "./config-drift.js";
import { BatchInputError } from "./errors.js";
import { mustRunAgain, needsRun, type PriorState, readPriorState, trajectoryPathFor } from "./resume.js";
import { lockRunFolder } from "./run-folder-lock.js";
import { RunLog } from "./run-log.js";
import { type InstanceRecord, RunRecord } from "./run-record.js";
import type { InstanceResult, InstanceSink, ReplicaCounts, StopReason } from "./types.js";

/**
 * Instances in a row that end with `ModelError` after the model server kept failing (retries
 * exhausted) before the batch stops starting new ones: the server is down, and every further
 * instance would only wait out its retries. A re-run of the same command runs them again.
 */
export const OUTAGE_LIMIT = 3;

/**
 * Runs in a row in which an instance may end with `ModelError` after its retries ran out (the
 * server failing on it) before that result is taken as final: a request the server fails on every
 * time (a 500 from a tool-call parser, a reply that is never valid JSON) must not keep a batch from
 * finishing, run after run.
 */
export const MAX_OUTAGE_RUNS = 3;

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
  /** The instance must run again (Interrupted, EnvironmentError, ModelError after retries). */
  again: boolean;
}

/** Throws `BatchInputError` when ids repeat or cannot name a folder (they become `DIR/<id>/`). */
export function checkInstanceIds(rows: SwebenchInstance[]): void {
  const seen = new Set<string>();
  for (const row of rows) {
    const id = row.instance_id;
    if (typeof id !== "string" || id === "" || id === "." || id === ".." || /[/\\\0]/.test(id)) {
      throw new BatchInputError(
        `instance id ${JSON.stringify(id)} cannot name a folder in the run directory (no /, \\ or empty ids)`,
      );
    }
    if (seen.has(id))
      throw new BatchInputError(
        `instance id ${id} appears twice in the selection; each instance may run once`,
      );
    seen.add(id);
  }
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

/** Reads every selected instance's trajectory, a few at a time. */
async function readPriors(rows: SwebenchInstance[], outputDir: string): Promise<Map<string, PriorState>> {
  const priors = new Map<string, PriorState>();
  let next = 0;
  const reader = async () => {
    while (next < rows.length) {
      const id = rows[next++].instance_id;
      priors.set(id, await readPriorState(outputDir, id));
    }
  };
  await Promise.all(Array.from({ length: 16 }, reader));
  return priors;
}

/** What earlier attempts of an instance spent, from its run.json record (`earlier_calls`, `earlier_cost`). */
function earlierSpend(record: unknown): { calls: number; cost: number } {
  const r = record as { earlier_calls?: unknown; earlier_cost?: unknown } | undefined;
  return { calls: Number(r?.earlier_calls) || 0, cost: Number(r?.earlier_cost) || 0 };
}

/** How many runs in a row ended with this instance's server failing, from its run.json record. */
function outageRuns(record: unknown): number {
  const n = (record as { model_error_runs?: unknown } | undefined)?.model_error_runs;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}

const isOutage = (o: Pick<TaskOutcome, "exit_status" | "model_error">) =>
  o.exit_status === "ModelError" && o.model_error?.kind === "retries_exhausted";

/** A file name a remote worker may hand back for an instance's folder: a plain name, no path. */
const SAFE_FILE = /^[A-Za-z0-9._-]+$/;

/**
 * The run folder of `patchloop swebench` (README.md here, and the project README's "Outputs"), and the
 * only code that writes it: preds.json, run.json, exit_statuses.yaml and run.log, the paths of the
 * trajectories, what earlier runs left (prior state, earlier spend) and the policies built on it
 * (which instances run again, in which order, when a server outage makes a ModelError final, when
 * the server is down). Results come in as `InstanceResult` (a TaskOutcome), the same from this process and from
 * remote workers, and are accepted once per instance and attempt (`dropReason`: the only place
 * that rule lives; a queue's coordinator asks it too).
 */
export class RunFolder implements InstanceSink {
  readonly dir: string;
  /** What runs now, instances that never ran first. */
  readonly todo: SwebenchInstance[];
  /** Instances with a final exit status from earlier runs. */
  readonly skipped: string[];
  /** Exit status of every selected instance that has one (earlier runs, then this one). */
  readonly statuses: Record<string, ExitStatus> = {};
  /** Model calls and USD the folder spent before this run (what the caps start from). */
  readonly spent: { calls: number; cost: number };
  readonly runId: string;
  private readonly pending: Set<string>;
  private readonly todoIds: Set<string>;
  private readonly accepted = new Set<string>();
  private readonly retired = new Set<string>();
  private readonly replicas: Record<string, ReplicaCounts> = {};
  private outagesInARow = 0;

  private constructor(
    private readonly o: RunFolderOptions,
    private readonly record: RunRecord,
    private readonly preds: PredsFile,
    private readonly runLog: RunLog,
    private readonly priors: Map<string, PriorState>,
    private readonly release: () => void,
    plan: { todo: SwebenchInstance[]; skipped: string[]; spent: { calls: number; cost: number } },
  ) {
    this.dir = resolve(o.outputDir);
    this.todo = plan.todo;
    this.skipped = plan.skipped;
    this.spent = plan.spent;
    this.pending = new Set(plan.todo.map((r) => r.instance_id));
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
      const priors = await readPriors(o.instances, dir);
      const plan = RunFolder.plan(o, priors, record.data.instances, log);
      const folder = new RunFolder(o, record, preds, log, priors, release, plan);
      await folder.start();
      return folder;
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * Splits the selection: final statuses are kept; the others run, those that never ran first and
   * those that ended badly before after them, so that instances failing on every try cannot hold up
   * fresh ones. A ModelError whose server failed in MAX_OUTAGE_RUNS runs in a row becomes final.
   * The caps count everything the folder spent: the selected instances' trajectories (their latest
   * attempt), run.json's record of the others, and what attempts run again spent (`earlier_*`).
   */
  private static plan(
    o: RunFolderOptions,
    priors: Map<string, PriorState>,
    records: Record<string, InstanceRecord>,
    log: RunLog,
  ) {
    const redo = o.redoExisting ?? false;
    const fresh: SwebenchInstance[] = [];
    const again: SwebenchInstance[] = [];
    const skipped: string[] = [];
    for (const row of o.instances) {
      const id = row.instance_id;
      const prior = priors.get(id) as PriorState;
      if (!needsRun(prior, redo)) skipped.push(id);
      else if (!redo && isOutageFinal(prior, records[id])) {
        skipped.push(id);
        log.line(
          `${id}: the model server failed on it in ${MAX_OUTAGE_RUNS} runs in a row; its ModelError is now final ` +
            "(--redo-existing runs it again)",
        );
      } else (prior.status === null ? fresh : again).push(row);
    }
    const spent = { calls: 0, cost: 0 };
    for (const p of priors.values()) {
      spent.calls += p.stats.api_calls;
      spent.cost += p.stats.cost;
    }
    for (const [id, r] of Object.entries(records)) {
      const e = earlierSpend(r);
      spent.calls += e.calls;
      spent.cost += e.cost;
      if (priors.has(id)) continue;
      spent.calls += Number(r.api_calls) || 0;
      spent.cost += Number(r.cost) || 0;
    }
    return { todo: [...fresh, ...again], skipped, spent };
  }

  /** Restores what a killed run left half done, records the kept statuses, writes the first state. */
  private async start(): Promise<void> {
    const { o, record, preds } = this;
    for (const id of this.skipped) {
      const prior = this.priors.get(id) as PriorState & { status: ExitStatus };
      this.statuses[id] = prior.status;
      // A run killed between its last trajectory save and preds.json: the trajectory has the patch.
      if (!preds.has(id))
        void preds.set({ instance_id: id, model_name_or_path: o.modelName, model_patch: prior.submission });
      const known = record.data.instances[id];
      if (!known || known.exit_status !== prior.status)
        record.set(id, {
          exit_status: prior.status,
          api_calls: prior.stats.api_calls,
          cost: prior.stats.cost,
        });
    }
    for (const row of this.todo) {
      const problem = this.priors.get(row.instance_id)?.problem;
      if (problem) this.log(`${row.instance_id}: ${problem}; running it again`);
    }
    record.data.selected = o.instances.length;
    record.data.skipped = this.skipped.length;
    await Promise.all([preds.flush(), record.save()]);
    // a queue's run (no `workers`) runs on however many workers take its jobs
    const where = o.runInfo.workers === undefined ? "workers of the queue" : `${o.runInfo.workers} workers`;
    this.log(
      `batch: ${o.instances.length} selected, ${this.skipped.length} with a final status kept, ${this.todo.length} to run, ` +
        `${where}, model ${o.modelName}, environment ${o.config.environment.environment_class}`,
    );
  }

  log(line: string): void {
    this.runLog.line(line);
  }

  warn(message: string): void {
    this.runLog.line(`WARNING: ${message}`);
    this.o.warn?.(message);
  }

  /** `DIR/<id>/<id>.traj.json`. */
  trajectoryPath(id: string): string {
    return trajectoryPathFor(this.dir, id);
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

  /**
   * The instance's trajectory is about to be replaced: what its earlier attempt spent moves to
   * run.json (`earlier_calls`, `earlier_cost`), so that the caps still count it. Once per instance.
   */
  async retire(id: string): Promise<void> {
    if (this.retired.has(id)) return;
    this.retired.add(id);
    const prior = this.priors.get(id);
    if (!prior || (prior.stats.api_calls === 0 && prior.stats.cost === 0)) return;
    const known = this.record.data.instances[id];
    const e = earlierSpend(known);
    this.record.set(id, {
      ...(known ?? { exit_status: prior.status ?? "Interrupted", api_calls: 0, cost: 0 }),
      earlier_calls: e.calls + prior.stats.api_calls,
      earlier_cost: e.cost + prior.stats.cost,
    });
    await this.record.save();
  }

  /** The attempt whose result run.json holds for an instance (remote runs), if any. */
  private recordedAttempt(id: string): string | undefined {
    const r = this.record.data.instances[id] as { attempt?: unknown } | undefined;
    return typeof r?.attempt === "string" ? r.attempt : undefined;
  }

  /**
   * Why a result of `id` (of `attempt`, for a remote one) would be dropped, or null when it would
   * be recorded: one result per instance in a run, of an instance this run runs, and never an
   * attempt the folder holds already (a result sent again after a coordinator was killed).
   */
  dropReason(id: string, attempt: string | undefined): string | null {
    if (attempt !== undefined && attempt === this.recordedAttempt(id)) return "the folder holds it already";
    if (this.accepted.has(id)) return "this run has its result already";
    if (!this.todoIds.has(id)) return "it is not part of this run";
    return null;
  }

  /** Whether the model server is taken to be down (OUTAGE_LIMIT instances in a row ran out of retries). */
  get serverDown(): boolean {
    return this.outagesInARow >= OUTAGE_LIMIT;
  }

  /**
   * Records one instance's result: its files (remote), preds.json, run.json and exit_statuses.yaml,
   * a line in run.log. Returns null, writing nothing, for a result `dropReason` drops (an instance
   * not part of this run, or one with a result already: results are accepted once).
   */
  async accept(result: InstanceResult): Promise<Recorded | null> {
    const { outcome } = result;
    const id = outcome.instance_id;
    const why = this.dropReason(id, outcome.attempt);
    if (why) {
      this.log(`${id}: a result of attempt ${outcome.attempt ?? "?"} was dropped: ${why}`);
      return null;
    }
    this.accepted.add(id);
    if (result.files) await this.writeFiles(id, result.files);
    if (outcome.masked_lines)
      this.warn(
        `${id}: ${outcome.masked_lines} line(s) of the patch held a secret value and were masked as *** in preds.json`,
      );
    addCounts(this.replicas, result.replicas ?? {});
    await this.preds.set(predOf(outcome, this.o.modelName));
    this.statuses[id] = outcome.exit_status;
    const again = mustRunAgain(outcome.exit_status, outcome.model_error);
    if (!again) this.pending.delete(id);
    this.outagesInARow = isOutage(outcome) ? this.outagesInARow + 1 : 0;
    const before = this.record.data.instances[id];
    const e = earlierSpend(before);
    this.record.set(id, {
      ...recordOf(outcome),
      ...(isOutage(outcome) ? { model_error_runs: outageRuns(before) + 1 } : {}),
      ...(e.calls > 0 || e.cost > 0 ? { earlier_calls: e.calls, earlier_cost: e.cost } : {}),
    });
    this.record.data.replicas = { ...this.replicas };
    await this.record.save();
    this.log(
      `end ${id} ${outcome.exit_status} (${outcome.api_calls} calls, $${outcome.cost.toFixed(4)}, ` +
        `${outcome.seconds}s, patch ${outcome.patch_bytes} bytes${result.worker ? `, worker ${result.worker.id}` : ""}): ` +
        outcome.exit_message,
    );
    return { outcome, again };
  }

  /** A remote worker's files of an instance, written into `DIR/<id>/` (earlier spend retired first). */
  private async writeFiles(id: string, files: Record<string, string>): Promise<void> {
    await this.retire(id);
    for (const [name, text] of Object.entries(files)) {
      if (!SAFE_FILE.test(name) || name === "." || name === "..") {
        this.log(
          `${id}: a file named ${JSON.stringify(name)} from the worker was not written (not a plain file name)`,
        );
        continue;
      }
      await writeFileAtomic(join(this.dir, id, name), text);
    }
  }

  /** Selected instances a re-run of the same command runs again (not started, or ended so). */
  pendingIds(): string[] {
    return this.todo.map((r) => r.instance_id).filter((id) => this.pending.has(id));
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

/** Whether an instance's ModelError has come back often enough in a row to be final. */
function isOutageFinal(prior: PriorState, record: unknown): boolean {
  return (
    prior.status === "ModelError" &&
    prior.modelError?.kind === "retries_exhausted" &&
    outageRuns(record) >= MAX_OUTAGE_RUNS
  );
}
