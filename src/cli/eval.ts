import { existsSync } from "node:fs";
import type { Command } from "commander";
import { attemptsHeader, evaluateAttempts, formatAttemptsReport } from "../batch/attempts-report.js";
import { ConfigError } from "../config/errors.js";
import { resolveLayer } from "../config/layers.js";
import { flagLayer, loadConfig } from "../config/load.js";
import { DatasetError, loadDataset } from "../dataset/load.js";
import { subsetHelp } from "../dataset/subset-help.js";
import { compareSummaries, loadComparableSummary } from "../grading/compare.js";
import { defaultEnvCheckCacheDir } from "../grading/env-check.js";
import { evaluatePredictions } from "../grading/evaluate.js";
import { type InstanceResult, verdictText } from "../grading/instance-result.js";
import { makeEvalProvider } from "../grading/make-provider.js";
import type { HarnessVersion } from "../grading/parsers/index.js";
import { goldPredictions, loadPredictions, PredictionsError } from "../grading/predictions.js";
import { formatRunReport } from "../grading/report-text.js";
import { datasetScope, runFolderOf, runScope, selectedRows } from "../grading/scope.js";
import { isV5Row } from "../grading/test-spec.js";
import { collect } from "./common.js";
import {
  addEnvironmentOptions,
  type EnvironmentFlags,
  FlagError,
  positiveInt,
  resolveEnvironmentFlags,
} from "./eval-flags.js";
import { guarded, untilSecondInterrupt } from "./guarded.js";
import { readRunSettings, runConfigLayer, withRunSettings } from "./run-settings.js";

/** Flags of `patchloop eval`, as commander hands them over. */
export interface EvalFlags extends EnvironmentFlags {
  predictions: string;
  split?: string;
  /** Default for a run folder: `patchloop-<folder name>`; required otherwise. */
  runId?: string;
  timeout: string;
  instanceIds?: string[];
  /** Default: `<run folder>/eval` for a run folder, else `logs/run_evaluation`. */
  output?: string;
  compare?: string;
  /** `4.1`, `5`; default: 5 when the rows carry v5 fields, else 4.1. */
  harnessVersion?: string;
  config: string[];
  install?: boolean;
  redoExisting?: boolean;
  /** Default: on for local and bwrap, off in containers. */
  checkEnv?: boolean;
  envCheckCache?: string;
  /** `--pro-scripts`: a checkout of scaleapi/SWE-bench_Pro-os (SWE-bench Pro rows). */
  proScripts?: string;
  platform?: string;
}

/** Where `runEval` writes: the report to `out`, progress and errors to `err`. */
export interface EvalIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE_ERRORS = [ConfigError, DatasetError, PredictionsError, FlagError];

class UsageError extends Error {}

/**
 * The body of `patchloop eval`; returns the exit status: 0 when every prediction was graded (or
 * was empty, or its patch did not apply: the prediction's own outcome), 1 when some instance
 * could not be graded (a timeout, no test results, an environment mismatch or an infrastructure error), 2 for usage and input errors
 * (bad flags or config, unreadable or malformed predictions or dataset, unknown or duplicate ids).
 */
export async function runEval(flags: EvalFlags, io: EvalIo, signal?: AbortSignal): Promise<number> {
  try {
    const timeout = positiveInt(flags.timeout, "--timeout");
    if (
      flags.harnessVersion !== undefined &&
      flags.harnessVersion !== "4.1" &&
      flags.harnessVersion !== "5"
    ) {
      throw new UsageError(`--harness-version must be 4.1 or 5, got ${JSON.stringify(flags.harnessVersion)}`);
    }
    const folder = flags.predictions === "gold" ? undefined : runFolderOf(flags.predictions);
    // a run folder grades where its batch ran (run.json), unless the flags say otherwise
    const settings = folder ? readRunSettings(folder.dir) : { sections: {} };
    const given = withRunSettings(flags, settings);
    const { workers, kind, python, specs } = await resolveEnvironmentFlags(given);
    if (folder && !existsSync(folder.preds)) {
      throw new UsageError(
        `--predictions ${flags.predictions}: a folder without preds.json (pass a run folder made by patchloop swebench -o DIR, or a predictions file)`,
      );
    }
    const runId = flags.runId ?? folder?.runId;
    if (!runId)
      throw new UsageError(
        "--run-id ID is required (it names the folder of this evaluation); only a run folder has a default",
      );
    if (!/^[\w.-]+$/.test(runId))
      throw new UsageError(`--run-id may hold letters, digits, _ . - only; got ${JSON.stringify(runId)}`);
    const layers = flags.platform
      ? [...flags.config, `environment.platform=${flags.platform}`]
      : flags.config;
    const runLayer = runConfigLayer(settings, ["environment"]);
    const { config } = runLayer
      ? loadConfig({
          configArgs: [],
          defaultConfig: "swebench",
          flagLayers: [
            runLayer,
            ...layers.map(resolveLayer),
            flagLayer("--environment", "environment.environment_class", kind),
          ],
        })
      : loadConfig({ configArgs: layers, defaultConfig: "swebench" });
    const subset = flags.dataset ?? folder?.selection?.subset ?? "lite";
    const split = flags.split ?? folder?.selection?.split ?? "test";
    const dataset = await loadDataset({ subset, split });
    const predictions =
      flags.predictions === "gold"
        ? goldPredictions(dataset)
        : await loadPredictions(folder ? folder.preds : flags.predictions);
    const named = flags.instanceIds?.flatMap((v) => v.split(",")).filter(Boolean);
    let instanceIds = named;
    let scope = datasetScope(subset, split, dataset.length, Boolean(named?.length));
    if (
      !named?.length &&
      folder?.selection &&
      (!flags.dataset || flags.dataset === folder.selection.subset)
    ) {
      const rows = selectedRows(dataset, folder.selection);
      instanceIds = rows.map((r) => r.instance_id);
      scope = runScope(folder.selection, rows.length);
    } else if (named?.length) {
      scope = datasetScope(subset, split, new Set(named).size, true);
    }
    const other = flags.compare
      ? await loadComparableSummary(flags.compare).catch((e: Error) =>
          Promise.reject(new UsageError(e.message)),
        )
      : undefined;
    const chosen = new Set(instanceIds ?? dataset.map((r) => r.instance_id));
    const graded = new Set(predictions.map((p) => p.instance_id));
    const v5Rows = dataset.filter(
      (r) => chosen.has(r.instance_id) && graded.has(r.instance_id) && isV5Row(r),
    );
    const harness: HarnessVersion =
      (flags.harnessVersion as HarnessVersion | undefined) ?? (v5Rows.length ? "5" : "4.1");
    if (!flags.harnessVersion && v5Rows.length) {
      io.err(
        `harness 5 rules: ${v5Rows.length} of the rows carry v5 fields (eval_script, eval_type); --harness-version 4.1 to grade them by 4.1's\n`,
      );
    } else if (flags.harnessVersion === "4.1" && v5Rows.length) {
      io.err(
        `WARNING: --harness-version 4.1 on ${v5Rows.length} rows with v5 fields: their own eval_script runs, graded by 4.1's rules\n`,
      );
    }
    const checkEnv = flags.checkEnv ?? (kind === "local" || kind === "bwrap");
    if (!checkEnv) {
      io.err(
        flags.checkEnv === false
          ? "WARNING: --no-check-env: the environment is not checked before grading; a wrong interpreter or package set can grade a no-op patch as resolved or the gold patch as unresolved, and nothing here will say so\n"
          : `environment check off (the default in ${kind} images); --check-env runs it\n`,
      );
    }
    const provider = makeEvalProvider({
      kind,
      reposDir: given.reposDir,
      environment: config.environment,
      runId,
      timeout,
    });
    const options = {
      dataset,
      predictions,
      runId,
      outputDir: flags.output ?? folder?.outputDir ?? "logs/run_evaluation",
      provider,
      instanceIds,
      workers,
      timeout,
      harness,
      install: flags.install,
      specs,
      redo: flags.redoExisting,
      python,
      checkEnv,
      checkEnvOff:
        flags.checkEnv === false ? "--no-check-env" : `off by default in ${kind} images; --check-env runs it`,
      checkCacheDir: flags.envCheckCache ?? defaultEnvCheckCacheDir(),
      proScripts: flags.proScripts,
      scope,
      signal,
      onResult: (r: InstanceResult, done: number, total: number) => {
        io.err(
          `[${done}/${total}] ${r.instance_id}: ${verdictText(r)}${r.seconds ? ` (${r.seconds} s)` : ""}\n`,
        );
      },
    };
    const run = await evaluatePredictions(options);
    const flips =
      other && flags.compare
        ? { ...compareSummaries(run.summary, other), against: flags.compare }
        : undefined;
    io.out(formatRunReport(run.summary, flips));
    io.out(`\nReport: ${run.summaryPath}\n`);
    const attempts = folder
      ? await evaluateAttempts(folder.dir, run, options, (k, n) => io.err(attemptsHeader(k, n)))
      : null;
    if (attempts) io.out(`\n${formatAttemptsReport(attempts)}`);
    const pl = run.summary.patchloop;
    const ungraded =
      pl.timeout_ids.length +
      pl.infrastructure_error_ids.length +
      pl.environment_mismatch_ids.length +
      pl.no_results_ids.length;
    return ungraded > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError || USAGE_ERRORS.some((E) => err instanceof E)) {
      io.err(`error: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}

/**
 * What to grade: `patchloop eval DIR` or `--predictions DIR|FILE|gold` (one of them; both only
 * when they name the same thing).
 */
export function predictionsArgument(
  positional: string | undefined,
  flag: string | undefined,
): string | { error: string } {
  if (positional !== undefined && flag !== undefined && positional !== flag)
    return {
      error: `two predictions given: ${JSON.stringify(positional)} and --predictions ${JSON.stringify(flag)}; pass one (patchloop eval DIR, or --predictions FILE|DIR|gold)`,
    };
  const chosen = positional ?? flag;
  if (chosen === undefined || chosen === "")
    return {
      error:
        "nothing to grade: pass a run folder (patchloop eval DIR) or --predictions FILE|DIR|gold (gold grades each row's own patch)",
    };
  return chosen;
}

/** Adds `patchloop eval` to the program. */
export function register(program: Command): void {
  addEnvironmentOptions(
    program
      .command("eval")
      .description(
        "Grade predictions the way the official SWE-bench harness does (4.1 rules, 5 for v5 rows); on the host it first checks that the environment grades like the harness's",
      )
      .argument("[DIR]", "a run folder or predictions file (the same as --predictions)")
      .option(
        "--predictions <FILE|DIR>",
        "predictions: .json (list or object keyed by id) or .jsonl; a run folder (patchloop swebench -o DIR) grades its preds.json into DIR/eval; `gold` uses each row's patch",
      ),
    `${subsetHelp()} (default: the run folder's, else lite)`,
    "instances evaluated at once",
  )
    .option("--split <SPLIT>", "dataset split, test or dev (default: the run folder's, else test)")
    .option(
      "--run-id <ID>",
      "name of this evaluation run (a folder under -o); default for a run folder: patchloop-<folder name>",
    )
    .option("--timeout <S>", "seconds the tests of one instance may run", "1800")
    .option("--instance-ids <ID...>", "evaluate only these instances (spaces or commas between ids)")
    .option(
      "-o, --output <DIR>",
      "reports go to DIR/<run-id>/<instance_id>/ (default: <run folder>/eval, else logs/run_evaluation)",
    )
    .option(
      "--compare <FILE>",
      "another run's summary JSON (harness or patchloop): list the instances that flipped",
    )
    .option(
      "--harness-version <V>",
      "grading rules: 4.1 or 5 (default: 5 when the rows carry v5 fields such as eval_script, else 4.1)",
    )
    .option("--check-env", "check the environment before grading (default in local and bwrap)")
    .option("--no-check-env", "grade without checking the environment (not recommended: grades may be wrong)")
    .option(
      "--env-check-cache <DIR>",
      "where environment checks are cached (default $PATCHLOOP_ENV_CHECK_CACHE, else ~/.cache/patchloop/env-checks)",
    )
    .option(
      "--pro-scripts <DIR>",
      "SWE-bench Pro rows: a checkout of scaleapi/SWE-bench_Pro-os, whose run_scripts/<id>/ grade each instance",
    )
    .option(
      "--platform <OS/ARCH>",
      "docker/podman: pull and run the images for this platform (environment.platform)",
    )
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
      "evaluate again where a report.json exists (default: reuse it for the same patch, as the harness does)",
    )
    .addHelpText(
      "after",
      "\nA run folder's run.json gives the environment, --repos-dir, --python, --specs and the config's environment section; flags and -c override them.\n" +
        "\nExit status: 0 every prediction was graded (or was empty, or its patch did not apply);\n" +
        "1 some instance could not be graded (timeout, no test results, environment mismatch or infrastructure error);\n" +
        "2 usage or input error (flags, config, dataset, predictions, unknown or duplicate ids).",
    )
    .action((positional: string | undefined, flags: EvalFlags) =>
      guarded(() => evalCommand(positional, flags)),
    );
}

/** `patchloop eval`: the predictions argument, then the run with Ctrl-C handled (twice: leave at once). */
async function evalCommand(positional: string | undefined, flags: EvalFlags): Promise<number> {
  const predictions = predictionsArgument(positional, flags.predictions);
  if (typeof predictions !== "string") throw new ConfigError(predictions.error);
  flags.predictions = predictions;
  // First Ctrl-C: start nothing new, let running instances finish and the summary be written.
  // Second: leave at once (every finished instance is already on disk).
  return untilSecondInterrupt((stop) =>
    runEval(flags, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }, stop),
  );
}
