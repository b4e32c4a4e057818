import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { loadConfig } from "../config/load.js";
import { DatasetError, loadDataset } from "../swebench/dataset.js";
import { compareSummaries, loadComparableSummary } from "../swebench/eval/compare.js";
import { evaluatePredictions } from "../swebench/eval/evaluate.js";
import { makeEvalProvider } from "../swebench/eval/make-provider.js";
import type { HarnessVersion } from "../swebench/eval/parsers/index.js";
import { goldPredictions, loadPredictions, PredictionsError } from "../swebench/eval/predictions.js";
import { formatRunReport } from "../swebench/eval/report-text.js";
import { loadSpecOverrides } from "../swebench/eval/test-spec.js";

/** Flags of `patchloop eval`, as commander hands them over. */
export interface EvalFlags {
  predictions: string;
  dataset: string;
  split: string;
  runId: string;
  workers: string;
  environment?: string;
  reposDir?: string;
  timeout: string;
  instanceIds?: string[];
  output: string;
  specs?: string;
  compare?: string;
  harnessVersion: string;
  config: string[];
  install?: boolean;
  redoExisting?: boolean;
}

/** Where `runEval` writes: the report to `out`, progress and errors to `err`. */
export interface EvalIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE_ERRORS = [ConfigError, DatasetError, PredictionsError];

class UsageError extends Error {}

function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} needs a positive whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The body of `patchloop eval`; returns the exit status: 0 when every prediction was graded (or
 * was empty, or its patch did not apply: the prediction's own outcome), 1 when some instance
 * could not be graded (a timeout or an infrastructure error), 2 for usage and input errors
 * (bad flags or config, unreadable or malformed predictions or dataset, unknown or duplicate ids).
 */
export async function runEval(flags: EvalFlags, io: EvalIo, signal?: AbortSignal): Promise<number> {
  try {
    const workers = positiveInt(flags.workers, "-w");
    const timeout = positiveInt(flags.timeout, "--timeout");
    if (flags.harnessVersion !== "4.1" && flags.harnessVersion !== "5") {
      throw new UsageError(`--harness-version must be 4.1 or 5, got ${JSON.stringify(flags.harnessVersion)}`);
    }
    const kind = flags.environment ?? "docker";
    if (!["docker", "podman", "local", "bwrap"].includes(kind)) {
      throw new UsageError(
        `--environment must be docker, podman, local or bwrap, got ${JSON.stringify(kind)}`,
      );
    }
    if ((kind === "local" || kind === "bwrap") && !flags.reposDir) {
      throw new UsageError(
        `--environment ${kind} needs --repos-dir DIR (one git clone per repository, named owner__repo)`,
      );
    }
    if (!/^[\w.-]+$/.test(flags.runId))
      throw new UsageError(
        `--run-id may hold letters, digits, _ . - only; got ${JSON.stringify(flags.runId)}`,
      );
    const { config } = loadConfig({ configArgs: flags.config, defaultConfig: "swebench" });
    const dataset = await loadDataset({ subset: flags.dataset, split: flags.split });
    const predictions =
      flags.predictions === "gold" ? goldPredictions(dataset) : await loadPredictions(flags.predictions);
    const specs = flags.specs
      ? await loadSpecOverrides(flags.specs).catch((e: Error) => Promise.reject(new UsageError(e.message)))
      : undefined;
    const other = flags.compare
      ? await loadComparableSummary(flags.compare).catch((e: Error) =>
          Promise.reject(new UsageError(e.message)),
        )
      : undefined;
    const provider = makeEvalProvider({
      kind,
      reposDir: flags.reposDir,
      environment: config.environment,
      runId: flags.runId,
      timeout,
    });
    const run = await evaluatePredictions({
      dataset,
      predictions,
      runId: flags.runId,
      outputDir: flags.output,
      provider,
      instanceIds: flags.instanceIds?.flatMap((v) => v.split(",")).filter(Boolean),
      workers,
      timeout,
      harness: flags.harnessVersion as HarnessVersion,
      install: flags.install,
      specs,
      redo: flags.redoExisting,
      signal,
      onResult: (r, done, total) => {
        const what = r.resolution ?? r.outcome.replaceAll("_", " ");
        io.err(`[${done}/${total}] ${r.instance_id}: ${what}${r.seconds ? ` (${r.seconds} s)` : ""}\n`);
      },
    });
    const flips =
      other && flags.compare
        ? { ...compareSummaries(run.summary, other), against: flags.compare }
        : undefined;
    io.out(formatRunReport(run.summary, flips));
    io.out(`\nReport: ${run.summaryPath}\n`);
    const ungraded =
      run.summary.patchloop.timeout_ids.length + run.summary.patchloop.infrastructure_error_ids.length;
    return ungraded > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError || USAGE_ERRORS.some((E) => err instanceof E)) {
      io.err(`error: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds `patchloop eval` to the program. */
export function register(program: Command): void {
  program
    .command("eval")
    .description("Grade predictions the way the official SWE-bench harness does (v4.1 by default)")
    .requiredOption(
      "--predictions <FILE>",
      "predictions: .json (list or object keyed by id) or .jsonl; `gold` uses each row's patch",
    )
    .option(
      "--dataset <NAME|PATH>",
      "lite, verified, full, owner/name on Hugging Face, or a .json/.jsonl/.parquet file",
      "lite",
    )
    .option("--split <SPLIT>", "dataset split (test or dev)", "test")
    .requiredOption("--run-id <ID>", "name of this evaluation run (a folder under -o)")
    .option("-w, --workers <N>", "instances evaluated at once", "1")
    .option(
      "--environment <KIND>",
      "docker, podman (instance images), local or bwrap (worktrees of --repos-dir)",
      "docker",
    )
    .option("--repos-dir <DIR>", "local/bwrap: folder with one git clone per repository, named owner__repo")
    .option("--timeout <S>", "seconds the tests of one instance may run", "1800")
    .option("--instance-ids <ID...>", "evaluate only these instances (spaces or commas between ids)")
    .option("-o, --output <DIR>", "reports go to DIR/<run-id>/<instance_id>/", "logs/run_evaluation")
    .option(
      "--specs <FILE>",
      "JSON/YAML mapping repo -> {log_parser, versions: {version or *: {test_cmd, install?, eval_commands?}}}",
    )
    .option(
      "--compare <FILE>",
      "another run's summary JSON (harness or patchloop): list the instances that flipped",
    )
    .option("--harness-version <V>", "grading semantics: 4.1 or 5", "4.1")
    .option(
      "-c, --config <CONFIG>",
      "config layers for the environment section (env, forward_env, executable, memory...)",
      collect,
      [],
    )
    .option("--install", "re-run the spec's install command in eval.sh (default in images)")
    .option("--no-install", "skip the install command (default for local and bwrap)")
    .option(
      "--redo-existing",
      "evaluate again where a report.json exists (default: reuse it, as the harness does)",
    )
    .addHelpText(
      "after",
      "\nExit status: 0 every prediction was graded (or was empty, or its patch did not apply);\n" +
        "1 some instance could not be graded (timeout or infrastructure error);\n" +
        "2 usage or input error (flags, config, dataset, predictions, unknown or duplicate ids).",
    )
    .action(async (flags: EvalFlags) => {
      // First Ctrl-C: start nothing new, let running instances finish and the summary be written.
      // Second: leave at once (every finished instance is already on disk).
      const stop = new AbortController();
      const onSigint = () => {
        if (stop.signal.aborted) process.exit(130);
        stop.abort();
        process.stderr.write("\nstopping: no new instances; Ctrl-C again to quit now\n");
      };
      process.on("SIGINT", onSigint);
      try {
        process.exitCode = await runEval(
          flags,
          { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
          stop.signal,
        );
      } finally {
        process.off("SIGINT", onSigint);
      }
    });
}
