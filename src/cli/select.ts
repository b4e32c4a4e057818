import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { loadConfig } from "../config/load.js";
import { DatasetError, loadDataset } from "../swebench/dataset.js";
import { PredictionsError } from "../swebench/eval/predictions.js";
import { runFolderOf, selectedRows } from "../swebench/eval/scope.js";
import type { SwebenchInstance } from "../swebench/types.js";
import { PredsFileError } from "../task/preds-file.js";
import { type CommandIo, collect } from "./common.js";
import {
  addEnvironmentOptions,
  type EnvironmentFlags,
  FlagError,
  resolveEnvironmentFlags,
} from "./eval-flags.js";

/** Flags of `patchloop select`, as commander hands them over. */
export interface SelectFlags extends EnvironmentFlags {
  predictions?: string[];
  output?: string;
  split?: string;
  instanceIds?: string[];
  config: string[];
}

/**
 * The body of `patchloop select [DIR] [--predictions A B ... -o OUT]`; returns the exit status:
 * 0 when every instance was selected (an instance without a usable candidate gets an empty
 * patch and says why in selection.jsonl), 2 for usage and input errors.
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
    const env = await resolveEnvironmentFlags(flags);
    const { config } = loadConfig({
      configArgs: [...flags.config, `environment.environment_class=${env.kind}`],
      defaultConfig: "swebench",
    });
    const folder = dir ? runFolderOf(dir) : undefined;
    if (dir && !folder)
      throw new FlagError(`${dir} is not a folder; pass a run folder made by patchloop swebench -o DIR`);
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
    const options = {
      config,
      rows,
      reposDir: flags.reposDir,
      specs: env.specs,
      python: env.python,
      workers: env.workers,
      signal,
      onRecord: (
        r: { instance_id: string; selected: number | null; reason: string; seconds: number },
        done: number,
        total: number,
      ) =>
        io.err(
          `[${done}/${total}] ${r.instance_id}: ${r.selected === null ? "none" : `candidate ${r.selected}`}: ${r.reason} (${r.seconds} s)\n`,
        ),
    };
    const run = folder
      ? await selectRunFolder(folder.dir, options)
      : await selectPredictions(files, flags.output as string, options);
    const chosen = run.records.filter((r) => r.selected !== null).length;
    io.out(
      `selected a patch for ${chosen} of ${run.records.length} instances\n${run.predsPath}\n${run.selectionPath}\n`,
    );
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
    "lite, verified, full, owner/name on Hugging Face, or a .json/.jsonl/.parquet file (default: the run folder's, else lite)",
    "instances selected at once",
  )
    .option("--split <SPLIT>", "dataset split, test or dev (default: the run folder's, else test)")
    .option("--instance-ids <ID...>", "select only these instances (spaces or commas between ids)")
    .option("-c, --config <CONFIG>", "config layers (run.select.*, the environment section)", collect, [])
    .addHelpText("after", "\nExit status: 0 every instance selected; 2 usage or input error.")
    .action(async (dir: string | undefined, flags: SelectFlags) => {
      const stop = new AbortController();
      const onSigint = () => {
        if (stop.signal.aborted) process.exit(130);
        stop.abort();
        process.stderr.write("\nstopping: no new instances; Ctrl-C again to quit now\n");
      };
      process.on("SIGINT", onSigint);
      try {
        process.exitCode = await runSelect(
          dir,
          flags,
          { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
          stop.signal,
        );
      } finally {
        process.off("SIGINT", onSigint);
      }
    });
}
