import { setMaxListeners } from "node:events";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { ExitStatus } from "../../agent/trajectory-types.js";
import { createModel } from "../../models/create-model.js";
import { removeStaleTempFiles } from "../../util/atomic-write.js";
import type { SwebenchInstance } from "../types.js";
import { BatchBudget } from "./budget.js";
import { checkConfigDrift } from "./config-drift.js";
import { BatchInputError } from "./errors.js";
import { openInstanceEnvironment } from "./instance-environment.js";
import { checkInstanceIds, planBatch } from "./plan.js";
import { PredsFile } from "./preds-file.js";
import { mustRunAgain } from "./resume.js";
import { arrangeTodo, MAX_OUTAGE_RUNS, nextOutageRuns } from "./retry-order.js";
import { lockRunFolder } from "./run-folder-lock.js";
import { type InstanceContext, runInstance } from "./run-instance.js";
import { RunLog } from "./run-log.js";
import { RunRecord } from "./run-record.js";
import type {
  BatchEvent,
  BatchOptions,
  BatchResult,
  EnvironmentOpener,
  InstanceOutcome,
  StopReason,
} from "./types.js";
import { usageOf } from "./usage.js";
import { makeWorkspaceRoot, sweepStaleRoots } from "./workspace-root.js";

/**
 * Instances in a row that end with `ModelError` after the model server kept failing (retries
 * exhausted) before the batch stops starting new ones: the server is down, and every further
 * instance would only wait out its retries. A re-run of the same command runs them again.
 */
export const OUTAGE_LIMIT = 3;

/** What earlier attempts of an instance spent, from its run.json record (`earlier_calls`, `earlier_cost`). */
function earlierSpend(record: unknown): { calls: number; cost: number } {
  const r = record as { earlier_calls?: unknown; earlier_cost?: unknown } | undefined;
  return { calls: Number(r?.earlier_calls) || 0, cost: Number(r?.earlier_cost) || 0 };
}

/** The default environment opener and what it leaves to remove at the end. */
async function defaultOpener(
  o: BatchOptions,
  runId: string,
  warn: (m: string) => void,
): Promise<{ open: EnvironmentOpener; done: () => Promise<void> }> {
  const kind = o.config.environment.environment_class;
  const needsTree = kind === "local" || kind === "bwrap";
  if (needsTree) await sweepStaleRoots();
  const workRoot = needsTree ? await makeWorkspaceRoot() : "";
  return {
    open: (row) => openInstanceEnvironment(o.config, row, { reposDir: o.reposDir, workRoot, runId, warn }),
    done: async () => {
      if (workRoot) await rm(workRoot, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the agent on every selected instance that has no final exit status yet (all of them with
 * `redoExisting`), `workers` at a time in this process, writing the run folder of DESIGN.md's
 * "Output layout": every file atomically, preds.json after every instance through one serialised
 * writer, run.json / exit_statuses.yaml likewise, run.log appended. A later run of the same
 * selection resumes: final statuses are skipped; `Interrupted`, `EnvironmentError`, missing and
 * unfinished trajectories run again. Aborting `signal` starts nothing new and interrupts the
 * running instances, which save as `Interrupted`. Rejects only when a file cannot be written
 * (or an existing preds.json cannot be read), after the running instances have stopped.
 *
 * The folder is locked for the run (a second run on it is a BatchInputError, a lock of a dead
 * process is taken over), temp files of killed writers are removed, and a folder holding results
 * of another config is refused unless `allowConfigChange` (config-drift.ts).
 */
export async function runBatch(o: BatchOptions): Promise<BatchResult> {
  const outputDir = resolve(o.outputDir);
  checkInstanceIds(o.instances);
  if (existsSync(outputDir) && !statSync(outputDir).isDirectory())
    throw new BatchInputError(`${outputDir} is not a folder: give -o a folder (new or of an earlier run)`);
  mkdirSync(outputDir, { recursive: true });
  const release = lockRunFolder(outputDir);
  try {
    const earlier = checkConfigDrift(outputDir, o.config, o.allowConfigChange ?? false);
    removeStaleTempFiles(outputDir);
    const runInfo = earlier.length > 0 ? { ...o.runInfo, earlier_configs: earlier } : o.runInfo;
    return await runInFolder({ ...o, runInfo }, outputDir);
  } finally {
    release();
  }
}

/** runBatch once the folder is checked and locked. */
async function runInFolder(o: BatchOptions, outputDir: string): Promise<BatchResult> {
  const started = Date.now();
  const preds = new PredsFile(outputDir);
  const log = new RunLog(outputDir, { config: o.config });
  const warn = (m: string) => {
    log.line(`WARNING: ${m}`);
    o.warn?.(m);
  };
  const emit = (e: BatchEvent) => o.onEvent?.(e);
  const workers = Math.max(1, Math.floor(o.workers ?? 1));
  const runId = o.runId ?? `swebench-${process.pid}-${Date.now().toString(36)}`;
  const record = new RunRecord(outputDir, o.config, { workers, run_id: runId, ...o.runInfo });
  const modelName = o.modelName ?? o.config.model.model_name;
  const plan = await planBatch(o.instances, outputDir, o.redoExisting ?? false);
  for (const id of arrangeTodo(plan, record.data.instances, o.redoExisting ?? false))
    log.line(
      `${id}: the model server failed on it in ${MAX_OUTAGE_RUNS} runs in a row; its ModelError is now final ` +
        "(--redo-existing runs it again)",
    );
  const statuses: Record<string, ExitStatus> = {};
  // The caps count everything this folder has spent: the selected instances' trajectories (their
  // latest attempt), run.json's record of the others (earlier runs with another selection), and
  // what attempts that were run again spent (`earlier_*` in run.json).
  const spent = { calls: 0, cost: 0 };
  for (const p of plan.priors.values()) {
    spent.calls += p.stats.api_calls;
    spent.cost += p.stats.cost;
  }
  for (const [id, r] of Object.entries(record.data.instances)) {
    const e = earlierSpend(r);
    spent.calls += e.calls;
    spent.cost += e.cost;
    if (plan.priors.has(id)) continue;
    spent.calls += Number(r.api_calls) || 0;
    spent.cost += Number(r.cost) || 0;
  }
  const pending = new Set(plan.todo.map((r) => r.instance_id));
  for (const { row, prior } of plan.skipped) {
    statuses[row.instance_id] = prior.status;
    const id = row.instance_id;
    // A run killed between its last trajectory save and preds.json: the trajectory has the patch.
    if (!preds.has(id))
      void preds.set({ instance_id: id, model_name_or_path: modelName, model_patch: prior.submission });
    const known = record.data.instances[id];
    if (!known || known.exit_status !== prior.status)
      record.set(id, { exit_status: prior.status, api_calls: prior.stats.api_calls, cost: prior.stats.cost });
  }
  for (const row of plan.todo) {
    const problem = plan.priors.get(row.instance_id)?.problem;
    if (problem) log.line(`${row.instance_id}: ${problem}; running it again`);
  }
  record.data.selected = o.instances.length;
  record.data.skipped = plan.skipped.length;
  await Promise.all([preds.flush(), record.save()]);
  log.line(
    `batch: ${o.instances.length} selected, ${plan.skipped.length} with a final status kept, ${plan.todo.length} to run, ` +
      `${workers} workers, model ${modelName}, environment ${o.config.environment.environment_class}`,
  );
  emit({ type: "planned", total: o.instances.length, skipped: plan.skipped.length, todo: plan.todo.length });

  const budget = new BatchBudget({ costLimit: o.costLimit, callLimit: o.callLimit }, spent);
  const abort = new AbortController();
  let stoppedBy: StopReason = null;
  const stop = (reason: Exclude<StopReason, null>) => {
    if (stoppedBy === "interrupted" || stoppedBy === reason) return;
    stoppedBy = reason;
    log.line(`stopping: ${reason}; no new instance starts`);
    emit({ type: "stopping", reason });
  };
  const onAbort = () => {
    stop("interrupted");
    abort.abort();
  };
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener("abort", onAbort, { once: true });

  const opener = o.openEnvironment
    ? { open: o.openEnvironment, done: async () => {} }
    : await defaultOpener(o, runId, warn);
  const modelFor = o.modelFor ?? (() => createModel(o.config.model, { warn }));
  const outcomes: InstanceOutcome[] = [];
  let fatal: Error | null = null;
  // Instances in a row whose model server kept failing; at OUTAGE_LIMIT nothing new starts.
  let outagesInARow = 0;
  let warnedFree = false;
  /** A cost cap on a model whose calls cost nothing can never stop the run: say so once. */
  const checkFree = (outcome: InstanceOutcome) => {
    if (warnedFree || !o.costLimit || outcome.api_calls === 0 || budget.cost > 0) return;
    warnedFree = true;
    warn(
      `--cost-limit ${o.costLimit} cannot stop this run: its model calls cost $0 (no price is known for ` +
        `${modelName}). Set model.price {input_per_mtok, output_per_mtok}, or use --call-limit.`,
    );
  };
  let next = 0;
  const mayLaunch = (): boolean => {
    if (abort.signal.aborted || fatal || stoppedBy === "model_unavailable") return false;
    const cap = budget.exhausted();
    if (cap) stop(cap);
    return cap === null;
  };
  // One signal per instance, aborted with the batch: listeners that model clients leave on a
  // signal (one per call) then go away with the instance instead of piling up on a shared one.
  const running = new Set<AbortController>();
  abort.signal.addEventListener("abort", () => {
    for (const c of running) c.abort();
  });
  const contextFor = (row: SwebenchInstance, signal: AbortSignal): InstanceContext => ({
    config: o.config,
    outputDir,
    modelFor,
    openEnvironment: opener.open,
    preds,
    modelName,
    signal,
    log: (line) => log.line(line),
    warn,
    onAgentEvent: (event) => {
      const u = usageOf(event);
      if (u) budget.add(u.calls, u.cost);
      emit({ type: "agent", instance_id: row.instance_id, event });
    },
  });
  const worker = async () => {
    while (next < plan.todo.length && mayLaunch()) {
      const row = plan.todo[next++];
      log.line(`start ${row.instance_id}`);
      emit({ type: "instance_start", instance_id: row.instance_id });
      // Its trajectory is about to be replaced: what its earlier attempt spent moves to run.json.
      const prior = plan.priors.get(row.instance_id);
      if (prior && (prior.stats.api_calls > 0 || prior.stats.cost > 0)) {
        const known = record.data.instances[row.instance_id];
        const e = earlierSpend(known);
        record.set(row.instance_id, {
          ...(known ?? { exit_status: prior.status ?? "Interrupted", api_calls: 0, cost: 0 }),
          earlier_calls: e.calls + prior.stats.api_calls,
          earlier_cost: e.cost + prior.stats.cost,
        });
        await record.save();
      }
      const own = new AbortController();
      setMaxListeners(0, own.signal);
      running.add(own);
      try {
        const outcome = await runInstance(row, contextFor(row, own.signal));
        outcomes.push(outcome);
        statuses[row.instance_id] = outcome.exit_status;
        if (!mustRunAgain(outcome.exit_status, outcome.model_error)) pending.delete(row.instance_id);
        const outage =
          outcome.exit_status === "ModelError" && outcome.model_error?.kind === "retries_exhausted";
        outagesInARow = outage ? outagesInARow + 1 : 0;
        if (outagesInARow >= OUTAGE_LIMIT) stop("model_unavailable");
        checkFree(outcome);
        const { instance_id: _, ...entry } = outcome;
        const before = record.data.instances[row.instance_id];
        const runs = nextOutageRuns(outcome, before);
        const e = earlierSpend(before);
        record.set(row.instance_id, {
          ...entry,
          ...(runs ? { model_error_runs: runs } : {}),
          ...(e.calls > 0 || e.cost > 0 ? { earlier_calls: e.calls, earlier_cost: e.cost } : {}),
        });
        await record.save();
        log.line(
          `end ${row.instance_id} ${outcome.exit_status} (${outcome.api_calls} calls, $${outcome.cost.toFixed(4)}, ` +
            `${outcome.seconds}s, patch ${outcome.patch_bytes} bytes): ${outcome.exit_message}`,
        );
        emit({ type: "instance_end", outcome });
      } catch (err) {
        fatal = err as Error;
        log.line(`FATAL ${row.instance_id}: ${fatal.message}`);
        abort.abort();
      } finally {
        running.delete(own);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(workers, Math.max(1, plan.todo.length)) }, worker));
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    await opener.done().catch((err: Error) => warn(`could not remove the work trees: ${err.message}`));
  }
  const totals = { api_calls: 0, cost: 0, prompt_tokens: 0, completion_tokens: 0 };
  for (const x of outcomes) {
    totals.api_calls += x.api_calls;
    totals.cost += x.cost;
    totals.prompt_tokens += x.prompt_tokens;
    totals.completion_tokens += x.completion_tokens;
  }
  const notStarted = plan.todo.slice(next).map((r) => r.instance_id);
  await record.finish(stoppedBy);
  log.line(
    `batch ended: ${outcomes.length} run, ${notStarted.length} not started${stoppedBy ? `, stopped by ${stoppedBy}` : ""}`,
  );
  await log.close();
  if (fatal) throw fatal;
  return {
    outcomes,
    skipped: plan.skipped.map((s) => s.row.instance_id),
    notStarted,
    stoppedBy,
    statuses,
    pending: plan.todo.map((r) => r.instance_id).filter((id) => pending.has(id)),
    totals,
    wallSeconds: (Date.now() - started) / 1000,
  };
}
