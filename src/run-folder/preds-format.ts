import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.js";
import { type PredEntry, PredsFileError, parsePredsJson } from "./preds-file.js";

/**
 * The predictions formats of other harnesses, made from preds.json (which PredsFile alone writes):
 * - `pro`: SWE-bench Pro's evaluator reads a JSON list of `{instance_id, patch, prefix}`; the
 *   prefix names its output files, here the model name (`model_name_or_path`);
 * - `list`: the SWE-bench harness's list form, `[{instance_id, model_name_or_path, model_patch}]`.
 * preds.json itself (an object keyed by id) is what the SWE-bench harness and SWE-bench-Live read.
 */
export const PREDICTION_FORMATS = ["swebench", "pro", "list"] as const;
export type PredictionFormat = (typeof PREDICTION_FORMATS)[number];

/** One entry of SWE-bench Pro's patch file. */
export interface ProPrediction {
  instance_id: string;
  patch: string;
  prefix: string;
}

/** The entries of preds.json in `format` (ordered by instance id, so the file is stable). */
export function convertPreds(entries: Record<string, PredEntry>, format: PredictionFormat): unknown {
  if (format === "swebench") return entries;
  const sorted = Object.values(entries).sort((a, b) => (a.instance_id < b.instance_id ? -1 : 1));
  if (format === "list") return sorted;
  return sorted.map(
    (e): ProPrediction => ({
      instance_id: e.instance_id,
      patch: e.model_patch,
      prefix: e.model_name_or_path,
    }),
  );
}

/** The file `writePredsAs` writes: `preds.json` for `swebench`, else `preds.<format>.json`. */
export function predsFileFor(outputDir: string, format: PredictionFormat): string {
  return join(outputDir, format === "swebench" ? "preds.json" : `preds.${format}.json`);
}

/**
 * Reads `DIR/preds.json` and writes it in `format` beside it (atomically); `swebench` writes
 * nothing (preds.json is that format). Returns the path of the predictions in that format.
 * A preds.json that is missing or is not an object keyed by instance id is a `PredsFileError`.
 */
export async function writePredsAs(outputDir: string, format: PredictionFormat): Promise<string> {
  const source = join(outputDir, "preds.json");
  const target = predsFileFor(outputDir, format);
  if (format === "swebench") return target;
  let text: string;
  try {
    text = await readFile(source, "utf8");
  } catch (err) {
    throw new PredsFileError(`cannot convert ${source} to the ${format} format: ${(err as Error).message}`);
  }
  const preds = parsePredsJson(text, source);
  if ("error" in preds) {
    throw new PredsFileError(
      preds.error === "not-json"
        ? `cannot convert ${source} to the ${format} format: ${preds.message}`
        : `cannot convert ${source}: it is not an object keyed by instance id`,
    );
  }
  if (preds.problems.length > 0) {
    throw new PredsFileError(`cannot convert to the ${format} format: ${preds.problems[0]}`);
  }
  const entries = preds.entries;
  await writeFileAtomic(target, `${JSON.stringify(convertPreds(entries, format), null, 2)}\n`);
  return target;
}

/** `--predictions-format`'s value checked: one of PREDICTION_FORMATS, else undefined. */
export function predictionFormat(value: string): PredictionFormat | undefined {
  return (PREDICTION_FORMATS as readonly string[]).includes(value) ? (value as PredictionFormat) : undefined;
}
