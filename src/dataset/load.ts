import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { DatasetError } from "./errors.js";
import { fetchHubParquet, HUB_DATASETS, HUB_SPLITS, type HubOptions } from "./hub.js";
import { instanceImageName, SUBSET_IMAGE_TEMPLATES } from "./images.js";
import { DATASET_EXTENSIONS, parseParquet, readDatasetFile } from "./read-local.js";
import type { SwebenchInstance } from "./types.js";

export { DatasetError, parseTestList } from "./errors.js";
export { defaultCacheDir, HUB_DATASETS, HUB_SPLITS, hubEndpoint } from "./hub.js";
export { parseJsonDataset, parseJsonl, readDatasetFile } from "./read-local.js";

/** `its only split is test` / `its splits are dev and test`. */
function splitList(splits: readonly string[]): string {
  if (splits.length === 1) return `its only split is ${splits[0]}`;
  return `its splits are ${splits.slice(0, -1).join(", ")} and ${splits[splits.length - 1]}`;
}

/** Options of `loadDataset`. */
export interface LoadDatasetOptions extends HubOptions {
  /** A name of `HUB_DATASETS` (`lite`, `pro`, ...), a Hugging Face dataset name (`owner/name`), or a .json/.jsonl/.parquet path. */
  subset: string;
  /**
   * Split of a Hugging Face dataset: `test` (default) or `dev` (`lite` and `full`; `full` also has
   * `train`). A local file has no splits: only `test` (or nothing) is accepted with one.
   */
  split?: string;
}

/**
 * Loads SWE-bench rows in the Hugging Face schema, in the dataset's order.
 * - `lite` / `verified` / `full` (or `owner/name`): the split's parquet files from the Hugging Face
 *   Hub, cached under `cacheDir`; offline, a `DatasetError` naming the URL and suggesting a local file.
 * - a path ending in .json (a list of rows or an object keyed by id), .jsonl (one row a line; a
 *   broken line is an error naming the file and line) or .parquet. Any split but `test` (the
 *   CLI's default) is an error: a file has no splits.
 * A split that `lite` / `verified` / `full` do not have is an error before any download.
 * Every problem is a `DatasetError` with a message meant for the user.
 */
export async function loadDataset(options: LoadDatasetOptions): Promise<SwebenchInstance[]> {
  const { subset } = options;
  const split = options.split ?? "test";
  const ext = extname(subset).toLowerCase();
  const named = HUB_DATASETS[subset.toLowerCase()];
  if (DATASET_EXTENSIONS.includes(ext) || (!named && existsSync(subset))) {
    if (!existsSync(subset)) throw new DatasetError(`dataset file not found: ${subset}`);
    if (split !== "test") {
      throw new DatasetError(
        `${subset} is a local file, which has no splits; got --split ${JSON.stringify(split)}. ` +
          "Leave --split out (or use test) and pass the file with the rows you want.",
      );
    }
    return readDatasetFile(subset);
  }
  const dataset = named ?? (/^[\w.-]+\/[\w.-]+$/.test(subset) ? subset : undefined);
  if (!dataset) {
    throw new DatasetError(
      `unknown dataset ${JSON.stringify(subset)}: use ${Object.keys(HUB_DATASETS).join(", ")}, a Hugging Face name (owner/name) ` +
        "or a path to a .json, .jsonl or .parquet file.",
    );
  }
  if (!/^[\w.-]+$/.test(split))
    throw new DatasetError(`invalid split ${JSON.stringify(split)}; use test or dev.`);
  const known = HUB_SPLITS[dataset];
  if (known && !known.includes(split)) {
    throw new DatasetError(
      `unknown split ${JSON.stringify(split)} for ${subset === dataset ? dataset : `${subset} (${dataset})`}: ` +
        `${splitList(known)}.`,
    );
  }
  const files = await fetchHubParquet(dataset, split, options);
  const rows: SwebenchInstance[] = [];
  for (const file of files)
    rows.push(...(await parseParquet(await readFile(file), `${dataset} ${split} (${file})`)));
  const template = named ? SUBSET_IMAGE_TEMPLATES[subset.toLowerCase()] : undefined;
  return template ? rows.map((row) => withPublishedImage(row, template)) : rows;
}

/** A row of a named subset with its published image named, where it names none itself. */
function withPublishedImage(row: SwebenchInstance, template: string): SwebenchInstance {
  if (row.image || row.image_name || row.docker_image || row.pro) return row;
  return { ...row, image_name: instanceImageName(row.instance_id, { template }) };
}
