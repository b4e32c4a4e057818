import { HUB_DATASETS } from "./hub.js";

/** The file extensions a local dataset file may have (.csv: SWE-bench Pro's sample files). */
export const DATASET_EXTENSIONS = [".json", ".jsonl", ".parquet", ".csv"];

/**
 * What `--subset` (`swebench`, `localize`, `select`, `images pull`, `config show`) and `--dataset`
 * (`eval`) take, in words, from the lists the dataset code reads: every named dataset of
 * `HUB_DATASETS`, a Hugging Face name, or a file with one of `DATASET_EXTENSIONS`.
 */
export function subsetHelp(): string {
  const files = DATASET_EXTENSIONS.join("/");
  return `${Object.keys(HUB_DATASETS).join(", ")}, owner/name on Hugging Face, or a ${files} file`;
}
