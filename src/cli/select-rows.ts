import { createHash } from "node:crypto";
import { ConfigError } from "../config/errors.js";
import { DatasetError, loadDataset } from "../dataset/load.js";
import { selectInstances } from "../dataset/select.js";
import type { SwebenchInstance } from "../dataset/types.js";

/** The flags of addSelectionOptions (common.ts). */
export interface SelectionFlags {
  subset: string;
  split: string;
  slice?: string;
  filter?: string;
  shuffle?: boolean;
  instanceIds: string[];
}

/** What identifies the dataset a run used (run.json `info.dataset`). */
export interface DatasetInfo {
  subset: string;
  split: string;
  /** Rows in the dataset (before the selection). */
  rows: number;
  /** sha256 of the loaded rows as JSON: the same rows give the same hash, whatever the source. */
  sha256: string;
}

/** The rows the selection flags pick (also `patchloop localize`'s); a bad selection is a ConfigError. */
export async function selectRows(
  flags: SelectionFlags,
): Promise<{ rows: SwebenchInstance[]; dataset: DatasetInfo }> {
  try {
    const rows = await loadDataset({ subset: flags.subset, split: flags.split });
    const dataset = {
      subset: flags.subset,
      split: flags.split,
      rows: rows.length,
      sha256: createHash("sha256").update(JSON.stringify(rows)).digest("hex"),
    };
    const ids = flags.instanceIds.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== "");
    const selected = selectInstances(rows, {
      slice: flags.slice,
      filter: flags.filter,
      shuffle: flags.shuffle,
      instanceIds: ids,
    });
    if (selected.length === 0) {
      throw new ConfigError(
        `the selection matched none of the ${rows.length} instances of ${flags.subset} (${flags.split}); check --slice, --filter and --instance-ids`,
      );
    }
    return { rows: selected, dataset };
  } catch (err) {
    if (err instanceof DatasetError) throw new ConfigError(err.message);
    throw err;
  }
}
