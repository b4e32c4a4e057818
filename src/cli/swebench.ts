import { existsSync, statSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { batchPreflight } from "../batch/preflight.js";
import { createProgressDisplay, type ProgressDisplay } from "../batch/progress-display.js";
import { type ReproduceInfo, reproduceDifferences, reproduceInfo } from "../batch/reproduce.js";
import { runBatch } from "../batch/run-batch.js";
import type { RunFolder } from "../batch/run-folder.js";
import { summaryTable } from "../batch/summary-table.js";
import type { BatchResult } from "../batch/types.js";
import { checkTemplatesForRows } from "../config/checks.js";
import { ConfigError } from "../config/errors.js";
import { flagLayer } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { createScrubber, secretsOf } from "../config/secret-values.js";
import { imageForRow } from "../dataset/images.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { parseQueueUrl, type QueueAddress } from "../distributed/queue-url.js";
import type { SpecOverrides } from "../grading/test-spec.js";
import { createModel } from "../models/factory/create-model.js";
import { BatchInputError } from "../run-folder/errors.js";
import { PredsFile } from "../run-folder/preds-file.js";
import { PREDICTION_FORMATS, predictionFormat, writePredsAs } from "../run-folder/preds-format.js";
import { readRunJson } from "../run-folder/run-json.js";
import {
  type AgentFlags,
  addAgentOptions,
  addSelectionOptions,
  guarded,
  loadAgentConfigAsking,
  NO_MODEL,
  pythonFlag,
} from "./common.js";
import { type DatasetInfo, type SelectionFlags, selectRows } from "./select-rows.js";

/** The flags of `patchloop swebench` (README.md "Commands", plus the batch caps). */
export interface SwebenchFlags extends AgentFlags, SelectionFlags {
  workers: string;
  output: string;
  reposDir?: string;
  redoExisting?: boolean;
  allowConfigChange?: boolean;
  costLimit?: string;
  callLimit?: string;
  /** `run.attempts`: attempts per instance. */
  attempts?: string;
  evaluate?: boolean;
  /** `--predictions-format`: also write preds.json in another harness's format (src/run-folder/preds-format.ts). */
  predictionsFormat?: string;
  /** With `--evaluate`: eval's `--specs` and `--python`. */
  specs?: string;
  python?: string;
  /** `redis://HOST:PORT[/DB]`: enqueue for `patchloop worker` processes instead of running here. */
  queue?: string;
  /** `--like DIR`: the command line of the run in DIR, this one's flags over it (cli/like.ts). */
  like?: string;
}

/** Where the command writes; tests pass their own. */
export interface CommandIo {
  /** The summary and results. */
  out: (text: string) => void;
  /** Progress, warnings, errors. */
  err: (text: string) => void;
  /** Whether `err` is a terminal (live redraw) or not (plain lines). */
  tty: boolean;
  /** Terminal width (a function: asked at every redraw). */
  columns?: number | (() => number | undefined);
  /** Milliseconds between plain progress lines (default 30 s) or redraws. */
  progressIntervalMs?: number;
}

const processIo = (): CommandIo => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  tty: process.stderr.isTTY === true,
  columns: () => process.stderr.columns,
});

function number(
  flag: string,
  value: string | undefined,
  opts: { integer?: boolean; min: number; above?: boolean },
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const low = opts.above ? n <= opts.min : n < opts.min;
  if (value.trim() === "" || !Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || low) {
    const kind = opts.integer ? "an integer" : "a number";
    throw new ConfigError(
      `${flag} needs ${kind} ${opts.above ? ">" : ">="} ${opts.min}; got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function checkModel(config: Config): void {
  if (!config.model.model_name) {
    throw new ConfigError(NO_MODEL);
  }
  try {
    createModel(config.model, { warn: () => {} });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

function checkReposDir(config: Config, reposDir: string | undefined): void {
  const kind = config.environment.environment_class;
  if (kind !== "local" && kind !== "bwrap") return;
  if (!reposDir) {
    throw new ConfigError(
      `environment ${kind} needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo ` +
        "(e.g. DIR/django__django). Or use --environment docker|podman with the SWE-bench instance images.",
    );
  }
  if (!existsSync(reposDir) || !statSync(reposDir).isDirectory())
    throw new ConfigError(`--repos-dir ${reposDir}: not a directory`);
}

/**
 * First SIGINT/SIGTERM/SIGHUP: abort (running instances save as Interrupted). Second: exit at once
 * (files stay valid). `say` prints above the live progress block, which would otherwise erase it.
 */
function trapSignals(abort: AbortController, say: (text: string) => void): () => void {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const handler = () => {
    if (abort.signal.aborted) {
      try {
        writeSync(
          2,
          "\nsecond interrupt: exiting now; finished files are intact, run the same command to resume\n",
        );
      } catch {
        // stderr is gone (a closed terminal): exit all the same
      }
      process.exit(130);
    }
    say(
      "interrupted: no new instances start; the running ones stop and save as Interrupted (Ctrl-C again to quit at once)",
    );
    abort.abort();
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}

async function evaluateAfter(
  flags: SwebenchFlags,
  eval_: EvalFlags,
  config: Config,
  rows: SwebenchInstance[],
  io: CommandIo,
  workers: number,
  signal: AbortSignal,
): Promise<void> {
  const [{ evaluateRun }, { formatRunReport }, { attemptsHeader }] = await Promise.all([
    import("../batch/evaluate-run.js"),
    import("../grading/report-text.js"),
    import("../batch/attempts-report.js"),
  ]);
  io.err("evaluating the predictions...\n");
  const run = await evaluateRun({
    specs: eval_.specs,
    python: eval_.python,
    config,
    rows,
    outputDir: flags.output,
    preds: new PredsFile(resolve(flags.output)),
    reposDir: flags.reposDir,
    workers,
    signal,
    onResult: (r, done, total) => io.err(`[eval ${done}/${total}] ${r.instance_id} ${r.outcome}\n`),
    onAttemptRun: (k, n) => io.err(attemptsHeader(k, n)),
  });
  io.out(`${formatRunReport(run.summary)}\nevaluation summary: ${run.summaryPath}\n`);
  if (run.attempts) {
    const { formatAttemptsReport } = await import("../batch/attempts-report.js");
    io.out(`\n${formatAttemptsReport(run.attempts)}`);
  }
}

/**
 * `run.select.enabled`: picks one patch per instance from its attempts (src/select/), rewriting
 * preds.json (the attempts' trajectories stay as they are) and writing selection.jsonl, before
 * any grading or conversion of preds.json.
 */
async function selectAfter(
  flags: SwebenchFlags,
  eval_: EvalFlags,
  config: Config,
  rows: SwebenchInstance[],
  io: CommandIo,
  workers: number,
  signal: AbortSignal,
): Promise<void> {
  const [{ selectRunFolder }, { selectLine, selectedCount }] = await Promise.all([
    import("../select/index.js"),
    import("./select.js"),
  ]);
  io.err("selecting one patch per instance (run.select)...\n");
  const run = await selectRunFolder(resolve(flags.output), {
    config,
    rows,
    reposDir: flags.reposDir,
    specs: eval_.specs,
    python: eval_.python,
    workers,
    signal,
    // an instance whose tests could not run keeps its standing attempt, and says so (docs/selection.md)
    onRecord: (r, done, total) => {
      if (r.untested) io.err(selectLine(r, done, total, false));
    },
  });
  const { chosen, kept } = selectedCount(run.records);
  io.out(
    `selection: a patch for ${chosen} of ${run.records.length} instances (${run.selectionPath})${kept ? `; ${kept} NOT TESTED kept their standing attempt (patchloop select ${flags.output} --accept-untested takes the untested picks)` : ""}\n`,
  );
}

/**
 * Whether the batch selects at its end: `run.select.enabled` as a layer set it, else (the
 * default) with several attempts per instance, the person having asked for one patch out of N;
 * not by default through a queue, whose coordinator has none of the clones the tests need.
 */
export function selectsAtEnd(config: Config, origin: ReadonlyMap<string, string>, queued = false): boolean {
  const set = origin.get("run.select.enabled");
  if (set !== undefined && set !== "configs/base.yaml") return config.run.select.enabled;
  return config.run.select.enabled || (config.run.attempts > 1 && !queued);
}

/** What `--evaluate` passes on to the grading, read and checked before anything runs. */
interface EvalFlags {
  specs?: SpecOverrides;
  python?: string;
}

async function evaluateFlags(flags: SwebenchFlags): Promise<EvalFlags> {
  for (const [name, v] of [
    ["--specs", flags.specs],
    ["--python", flags.python],
  ] as const)
    if (v !== undefined && !flags.evaluate)
      throw new ConfigError(
        `${name} goes with --evaluate (it is how the predictions are graded); add --evaluate or leave it out`,
      );
  const specs = flags.specs
    ? await (await import("../grading/test-spec.js"))
        .loadSpecOverrides(flags.specs)
        .catch((e: Error) => Promise.reject(new ConfigError(e.message)))
    : undefined;
  return { specs, python: pythonFlag(flags.python) };
}

/**
 * `patchloop swebench`: the agent on SWE-bench instances, `-w` at a time, into `-o DIR`.
 * Exit 0 when every selected instance has a final exit status, 1 when some must run again
 * (Interrupted, EnvironmentError, ModelError after retries, not started), 2 for usage, config and
 * dataset errors.
 */
export async function runSwebenchCommand(flags: SwebenchFlags, io: CommandIo = processIo()): Promise<number> {
  const workers = number("-w/--workers", flags.workers, { integer: true, min: 1 }) as number;
  // A cap of 0 would stop everything at once; leave the flag out for no cap.
  const costLimit = number("--cost-limit", flags.costLimit, { min: 0, above: true });
  const callLimit = number("--call-limit", flags.callLimit, { integer: true, min: 1 });
  // The templates are checked against the selected rows (each has its own fields), not a sample.
  const queue = flags.queue === undefined ? undefined : parseQueueUrl(flags.queue);
  const evalFlags = await evaluateFlags(flags);
  const format =
    flags.predictionsFormat === undefined ? undefined : predictionFormat(flags.predictionsFormat);
  if (flags.predictionsFormat !== undefined && format === undefined) {
    throw new ConfigError(
      `--predictions-format ${JSON.stringify(flags.predictionsFormat)} is not a format; use one of ${PREDICTION_FORMATS.join(", ")}`,
    );
  }
  const attempts = number("--attempts", flags.attempts, { integer: true, min: 1 });
  const loaded = await loadAgentConfigAsking(
    flags,
    "swebench",
    null,
    attempts === undefined ? [] : [flagLayer(`--attempts ${attempts}`, "run.attempts", attempts)],
  );
  const config = loaded.config;
  checkModel(config);
  // What a worker would refuse (a variant naming a machine key, a model file) stops here, before any job.
  if (queue) (await import("../distributed/machine-config.js")).checkQueueConfig(config);
  // A coordinator runs nothing itself: its workers have the clones, the engine and the model server.
  if (!queue) checkReposDir(config, flags.reposDir);
  const { rows, dataset } = await selectRows(flags);
  checkTemplatesForRows(config, rows);
  const problem = await batchPreflight({
    config,
    rows,
    reposDir: flags.reposDir,
    machine: !queue,
    model: !queue,
    warn: (m) => io.err(`WARNING: ${m}\n`),
  });
  if (problem) throw new ConfigError(problem);
  const reproduce = await reproduceOf(config, rows, dataset, !queue);
  if (flags.like) io.err(likeReport(flags.like, reproduce));
  const abort = new AbortController();
  // The console gets what run.log gets: the config's and the host's secrets and URL credentials masked.
  const scrub = createScrubber(secretsOf({ config }));
  const display = createProgressDisplay({
    write: (text) => io.err(scrub(text)),
    tty: io.tty,
    columns: io.columns,
    intervalMs: io.progressIntervalMs,
  });
  const untrap = trapSignals(abort, display.print);
  try {
    const result = await runWithProgress(flags, config, loaded.sources, rows, display, abort.signal, {
      dataset,
      workers,
      costLimit,
      callLimit,
      queue,
      reproduce,
    });
    io.out(scrub(summaryTable(result, resolve(flags.output))));
    const select = selectsAtEnd(config, loaded.origin, queue !== undefined);
    if (select && !abort.signal.aborted)
      await selectAfter(flags, evalFlags, config, rows, io, workers, abort.signal);
    else if (config.run.attempts > 1 && !config.run.select.enabled && queue)
      io.out(
        "preds.json holds each instance's standing attempt (the first that did not fail): a queue's coordinator " +
          "does not select unless run.select.enabled is set, since its workers hold the clones the tests need. " +
          `To pick one patch per instance from its attempts, on a machine with them: patchloop select ${flags.output}\n`,
      );
    else if (config.run.attempts > 1 && !config.run.select.enabled)
      io.out(
        `preds.json holds each instance's standing attempt (the first that did not fail; run.select.enabled is false). ` +
          `To pick one patch per instance from its attempts: patchloop select ${flags.output}\n`,
      );
    if (format && format !== "swebench") {
      io.out(`predictions (${format}): ${await writePredsAs(resolve(flags.output), format)}\n`);
    }
    if (flags.evaluate && !abort.signal.aborted)
      await evaluateAfter(flags, evalFlags, config, rows, io, workers, abort.signal);
    return result.stoppedBy === null && result.pending.length === 0 ? 0 : 1;
  } finally {
    display.stop();
    untrap();
  }
}

interface Numbers {
  workers: number;
  costLimit?: number;
  callLimit?: number;
  dataset: DatasetInfo;
  queue?: QueueAddress;
  reproduce: ReproduceInfo;
}

async function runWithProgress(
  flags: SwebenchFlags,
  config: Config,
  sources: string[],
  rows: SwebenchInstance[],
  display: ProgressDisplay,
  signal: AbortSignal,
  n: Numbers,
): Promise<BatchResult> {
  try {
    return await runBatch({
      config,
      instances: rows,
      outputDir: flags.output,
      workers: n.workers,
      reposDir: flags.reposDir ? resolve(flags.reposDir) : undefined,
      redoExisting: flags.redoExisting,
      allowConfigChange: flags.allowConfigChange,
      costLimit: n.costLimit,
      callLimit: n.callLimit,
      signal,
      onEvent: (e) => display.onEvent(e),
      warn: (m) => display.print(`WARNING: ${m}`),
      ...(n.queue ? { dispatch: coordinator(n.queue, config, display) } : {}),
      runInfo: {
        argv: flags.like ? likeArgv(flags) : process.argv.slice(2),
        cwd: process.cwd(),
        config_sources: sources,
        reproduce: n.reproduce,
        dataset: n.dataset,
        selection: {
          slice: flags.slice,
          filter: flags.filter,
          shuffle: flags.shuffle ?? false,
          instance_ids: flags.instanceIds,
        },
        limits: { cost_limit: n.costLimit ?? null, call_limit: n.callLimit ?? null },
        // what `patchloop select DIR` runs the tests with unless its flags say otherwise (cli/run-settings.ts)
        machine: {
          repos_dir: flags.reposDir ? resolve(flags.reposDir) : null,
          python: pythonFlag(flags.python) ?? null,
          specs: flags.specs ? resolve(flags.specs) : null,
        },
      },
    });
  } catch (err) {
    if (err instanceof BatchInputError) throw new ConfigError(err.message);
    throw err;
  } finally {
    display.stop();
  }
}

/** The dispatcher of a run through a queue (`--queue`): workers run the instances. */
function coordinator(queue: QueueAddress, config: Config, display: ProgressDisplay) {
  // the queue's libraries (BullMQ, ioredis) load only for a run with --queue
  return async (folder: RunFolder) =>
    (await import("../distributed/coordinator-dispatch.js"))
      .createCoordinatorDispatcher(
        {
          queue,
          config,
          modelName: config.model.model_name,
          say: (line) => display.print(line),
          onWorkers: (workers) => display.onEvent({ type: "workers", workers }),
        },
        folder,
      )
      .catch((err: Error) => {
        throw new BatchInputError(err.message);
      });
}

/** Adds `swebench` to the program; `io` (default: the process's stdout/stderr) is for tests. */
export function register(program: Command, io?: CommandIo): void {
  defineSwebenchOptions(
    program
      .command("swebench")
      .description("run the agent on SWE-bench instances, many at once, into a resumable run folder"),
  ).action((flags: SwebenchFlags, cmd: Command) =>
    guarded(async () =>
      runSwebenchCommand(flags.like ? await withLike(flags, cmd) : flags, io ?? processIo()),
    ),
  );
}

/** `--like DIR`: the recorded run's flags with this command's over them. */
async function withLike(flags: SwebenchFlags, cmd: Command): Promise<SwebenchFlags> {
  const { likeRun } = await import("./like.js");
  const like = await likeRun(
    flags.like as string,
    flags as unknown as Record<string, unknown>,
    (k) => cmd.getOptionValueSource(k),
    defineSwebenchOptions,
  );
  return { ...(like.flags as unknown as SwebenchFlags), output: flags.output, like: flags.like };
}

/** The command line run.json records for a `--like` run: the merged flags, as they were used. */
function likeArgv(flags: SwebenchFlags): string[] {
  return ["swebench", ...flagArgs(flags)];
}

/** Flags back into a command line (long names; `-c` repeated), for run.json. */
function flagArgs(flags: SwebenchFlags): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(flags)) {
    if (k === "like" || v === undefined || v === false) continue;
    const name = `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (Array.isArray(v)) for (const x of v) out.push(name, String(x));
    else if (v === true) out.push(name);
    else out.push(name, String(v));
  }
  return out;
}

/** What run.json records for reproducing the run (reproduce.ts); read once, before the first instance. */
async function reproduceOf(
  config: Config,
  rows: SwebenchInstance[],
  dataset: DatasetInfo,
  askServer: boolean,
): Promise<ReproduceInfo> {
  const kind = config.environment.environment_class;
  const images =
    kind === "docker" || kind === "podman"
      ? rows.flatMap((r) => {
          try {
            return [imageForRow(r, config.environment)];
          } catch {
            return [];
          }
        })
      : undefined;
  return reproduceInfo({ config, rows, dataset, images, askServer });
}

/** What `--like DIR` says before the run starts: what differs from the run in DIR. */
function likeReport(dir: string, now: ReproduceInfo): string {
  const path = join(resolve(dir), "run.json");
  const read = readRunJson(path);
  const recorded = read.ok ? read.run.info.reproduce : undefined;
  const lines = reproduceDifferences(recorded, now);
  return lines.length === 0
    ? `--like ${dir}: the same patchloop, config, model server, dataset rows and environment as recorded\n`
    : `--like ${dir}: what differs from the recorded run:\n${lines.map((l) => `  ${l}\n`).join("")}`;
}

/** The options of `patchloop swebench` (also read by --like for a recorded command line). */
export function defineSwebenchOptions(cmd: Command): Command {
  return addAgentOptions(
    addSelectionOptions(cmd)
      .option("-w, --workers <N>", "instances run at once", "1")
      .requiredOption("-o, --output <DIR>", "the run folder (created; an existing one is resumed)")
      .option("--repos-dir <DIR>", "local/bwrap: folder with one git clone per repository, named owner__repo")
      .option("--redo-existing", "run every selected instance again, even those with a final exit status")
      .option(
        "--allow-config-change",
        "resume a run folder whose results came from another config (run.json keeps the earlier one)",
      )
      .option(
        "--attempts <N>",
        "independent attempts per instance (run.attempts; each in DIR/<id>/attempt-<k>/, docs/attempts.md)",
      )
      .option("--cost-limit <USD>", "stop starting instances once all instances together cost this much")
      .option(
        "--call-limit <N>",
        "stop starting instances once all instances together made this many model calls",
      )
      .option("--evaluate", "grade the predictions after the batch (patchloop eval on this folder)")
      .option(
        "--predictions-format <FORMAT>",
        "also write the predictions as pro (SWE-bench Pro: preds.pro.json) or list (preds.list.json); preds.json is always written",
      )
      .option("--specs <FILE>", "with --evaluate: eval's --specs (test commands and parser per repository)")
      .option("--python <PATH>", "with --evaluate, local/bwrap: the interpreter the tests run with")
      .option(
        "--queue <URL>",
        "redis://HOST:PORT[/DB]: enqueue the instances for patchloop worker processes (on any machine) and collect their results into -o",
      )
      .option(
        "--like <DIR>",
        "run again as the run in DIR was run (its recorded command line and folder; flags given here win), saying what differs",
      ),
  );
}
