import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { resolveLayer } from "../config/layers.js";
import { flagLayer, loadConfig } from "../config/load.js";
import { DatasetError, loadDataset } from "../dataset/load.js";
import { subsetHelp } from "../dataset/subset-help.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { PredictionsError } from "../grading/predictions.js";
import { runFolderOf, selectedRows } from "../grading/scope.js";
import { PredsFileError } from "../run-folder/preds-file.js";
import type { SelectionRecord } from "../select/record.js";
import { type CommandIo, collect } from "./common.js";
import {
  addEnvironmentOptions,
  type EnvironmentFlags,
  FlagError,
  resolveEnvironmentFlags,
} from "./eval-flags.js";
import { guarded, untilSecondInterrupt } from "./guarded.js";
import { readRunSettings, runConfigLayer, withRunSettings } from "./run-settings.js";

/** Flags of `patchloop select`, as commander hands them over. */
export interface SelectFlags extends EnvironmentFlags {
  predictions?: string[];
  output?: string;
  split?: string;
  instanceIds?: string[];
  config: string[];
  /** Write the vote's pick of an instance whose planned tests could not run (else preds.json keeps its patch, exit 1). */
  acceptUntested?: boolean;
}

/** One instance's line on the console: the attempt picked (by its folder's name), or why not and what preds.json holds. */
export function selectLine(r: SelectionRecord, done: number, total: number, acceptUntested: boolean): string {
  const head = `[${done}/${total}] ${r.instance_id}`;
  const pick = r.selected === null ? "none" : (r.selected_source ?? `candidate ${r.selected}`);
  const secs = `(${r.seconds} s)`;
  if (!r.untested) return `${head}: ${pick}: ${r.reason} ${secs}\n`;
  if (r.preds_json === "kept") {
    const held = r.kept_source ? `${r.kept_source}'s patch` : "the patch it held";
    return `${head}: NOT TESTED: ${sentence(r.untested)} preds.json keeps ${held}; untested, the vote alone would pick ${pick} (--accept-untested takes it) ${secs}\n`;
  }
  const why = acceptUntested ? "accepted with --accept-untested" : "preds.json held nothing for it";
  return `${head}: ${pick}, NOT TESTED (${why}): ${sentence(r.untested)} ${r.reason} ${secs}\n`;
}

/** `text` ending with one full stop (a reason may already end with one). */
function sentence(text: string): string {
  return text.endsWith(".") ? text : `${text}.`;
}

/**
 * The count line's words: instances whose pick preds.json now holds, and those NOT TESTED whose
 * patch preds.json kept (they were not selected).
 */
export function selectedCount(records: SelectionRecord[]): { chosen: number; kept: number } {
  const kept = records.filter((r) => r.preds_json === "kept").length;
  const chosen = records.filter((r) => r.selected !== null && r.preds_json !== "kept").length;
  return { chosen, kept };
}

/**
 * The body of `patchloop select [DIR] [--predictions A B ... -o OUT]`; returns the exit status:
 * 0 when every instance was selected (an instance without a usable candidate gets an empty
 * patch and says why in selection.jsonl), 1 when the tests planned for some instance could not
 * run (preds.json keeps its patch for it; `--accept-untested` takes the vote's pick and exits 0),
 * 2 for usage and input errors.
 */
export async function runSelect(
  dir: string | undefined,
  flags: SelectFlags,
  io: CommandIo,
  signal?: AbortSignal,
): Promise<number> {
  const { selectPredictions, selectRunFolder, SelectInputError } = await import("../select/index.js");
  try {
    const files = flags.predictions ?? [];
    if (dir && files.length > 0)
      throw new FlagError("give a run folder DIR or --predictions FILE..., not both");
    if (!dir && files.length === 0) {
      throw new FlagError(
        "nothing to select from: give a run folder DIR, or --predictions A.jsonl B.jsonl ... -o OUT",
      );
    }
    if (files.length > 0 && !flags.output)
      throw new FlagError("--predictions needs -o OUT (where preds.json and selection.jsonl go)");
    if (dir && flags.output)
      throw new FlagError(
        `-o is for --predictions; a run folder's selection goes to ${dir}/preds.json and ${dir}/selection.jsonl`,
      );
    const folder = dir ? runFolderOf(dir) : undefined;
    if (dir && !folder)
      throw new FlagError(`${dir} is not a folder; pass a run folder made by patchloop swebench -o DIR`);
    const run = folder ? readRunSettings(folder.dir) : { sections: {} };
    const given = withRunSettings(flags, run);
    const runLayer = runConfigLayer(run, ["environment", "select", "model"]);
    const env = await resolveEnvironmentFlags(given);
    // the run's own config under the -c layers, the environment class last (--environment, else the run's)
    const { config } = loadConfig({
      configArgs: [],
      defaultConfig: "swebench",
      flagLayers: [
        ...(runLayer ? [runLayer] : []),
        ...flags.config.map(resolveLayer),
        flagLayer("--environment", "environment.environment_class", env.kind),
      ],
    });
    if (folder && !folder.selection && !flags.dataset) {
      throw new FlagError(
        `${dir} has no run.json naming its dataset (a folder from an older patchloop, or not a batch run folder); pass --dataset NAME|PATH`,
      );
    }
    const subset = flags.dataset ?? folder?.selection?.subset ?? "lite";
    const split = flags.split ?? folder?.selection?.split ?? "test";
    const dataset = await loadDataset({ subset, split });
    let rows: SwebenchInstance[] =
      folder?.selection && (!flags.dataset || flags.dataset === folder.selection.subset)
        ? selectedRows(dataset, folder.selection)
        : dataset;
    const named = flags.instanceIds?.flatMap((v) => v.split(",")).filter(Boolean);
    if (named?.length) {
      const known = new Set(rows.map((r) => r.instance_id));
      const unknown = named.filter((id) => !known.has(id));
      if (unknown.length)
        throw new FlagError(`--instance-ids names instances not in the dataset: ${unknown.join(", ")}`);
      const wanted = new Set(named);
      rows = rows.filter((r) => wanted.has(r.instance_id));
    }
    const accept = flags.acceptUntested === true;
    const options = {
      config,
      rows,
      reposDir: given.reposDir,
      specs: env.specs,
      python: env.python,
      workers: env.workers,
      acceptUntested: accept,
      signal,
      onRecord: (r: SelectionRecord, done: number, total: number) =>
        io.err(selectLine(r, done, total, accept)),
    };
    const picked = folder
      ? await selectRunFolder(folder.dir, options)
      : await selectPredictions(files, flags.output as string, options);
    const { chosen, kept: keptCount } = selectedCount(picked.records);
    const keptWords = keptCount ? `; ${keptCount} NOT TESTED (preds.json kept the patch it held)` : "";
    io.out(
      `selected a patch for ${chosen} of ${picked.records.length} instances${keptWords}\n${picked.predsPath}\n${picked.selectionPath}\n`,
    );
    const kept = picked.records.filter((r) => r.preds_json === "kept");
    if (kept.length > 0) {
      io.err(
        `${kept.length} instance(s) NOT TESTED, preds.json kept their patches: ${kept.map((r) => r.instance_id).join(", ")}. ` +
          "Fix what stopped the tests (the lines above say it), or pass --accept-untested to take the untested picks.\n",
      );
      return 1;
    }
    return 0;
  } catch (err) {
    const usage = [FlagError, ConfigError, DatasetError, PredictionsError, PredsFileError, SelectInputError];
    if (usage.some((E) => err instanceof E)) {
      io.err(`error: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}

/** Adds `patchloop select` to the program. */
export function register(program: Command): void {
  addEnvironmentOptions(
    program
      .command("select")
      .description(
        "Pick one patch per instance from several candidates (a run folder's attempts, or prediction files): normalize, run the repository's own tests, vote (docs/selection.md)",
      )
      .argument(
        "[DIR]",
        "a run folder (patchloop swebench -o DIR); writes DIR/preds.json and DIR/selection.jsonl",
      )
      .option(
        "--predictions <FILE...>",
        "prediction files, each one attempt (.jsonl, or .json as eval reads them)",
      )
      .option("-o, --output <DIR>", "with --predictions: where preds.json and selection.jsonl go"),
    `${subsetHelp()} (default: the run folder's, else lite)`,
    "instances selected at once",
  )
    .option("--split <SPLIT>", "dataset split, test or dev (default: the run folder's, else test)")
    .option("--instance-ids <ID...>", "select only these instances (spaces or commas between ids)")
    .option("-c, --config <CONFIG>", "config layers (run.select.*, the environment section)", collect, [])
    .option(
      "--accept-untested",
      "write the vote's pick of an instance whose planned tests could not run (default: preds.json keeps its patch and the exit status is 1)",
    )
    .addHelpText(
      "after",
      "\nA run folder's run.json gives the environment, --repos-dir, --python, --specs, the dataset and the config's environment and run.select sections; flags and -c override them.\n" +
        "\nExit status: 0 every instance selected; 1 some instance NOT TESTED (preds.json kept its patch); 2 usage or input error.",
    )
    .action((dir: string | undefined, flags: SelectFlags) =>
      guarded(() =>
        untilSecondInterrupt((stop) =>
          runSelect(
            dir,
            flags,
            { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
            stop,
          ),
        ),
      ),
    );
}
