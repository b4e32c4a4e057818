import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { selectInstances } from "../dataset/select.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { readRunJson } from "../run-folder/run-json.js";
import { plural } from "../util/plural.js";
import type { SummaryScope } from "./summary.js";

/**
 * What an evaluation's denominator is, and the defaults of grading a run folder: `patchloop eval
 * --predictions DIR` and `patchloop swebench --evaluate` both grade into `DIR/eval/patchloop-<name>/`
 * over the instances the run took (read back from run.json), so they give the same figures.
 */

/** The dataset and selection a batch recorded in run.json (`info.dataset`, `info.selection`). */
export interface RunSelection {
  subset?: string;
  split?: string;
  slice?: string;
  filter?: string;
  shuffle?: boolean;
  instance_ids?: string[];
}

/** A run folder as `eval` uses it. */
export interface RunFolder {
  dir: string;
  preds: string;
  /** `patchloop-<folder name>`, the run id of `swebench --evaluate`. */
  runId: string;
  /** `DIR/eval`. */
  outputDir: string;
  /** Undefined when run.json is absent or records no dataset. */
  selection?: RunSelection;
}

/** The run folder `path` names (a folder holding preds.json, or preds.json beside a run.json), or undefined. */
export function runFolderOf(path: string): RunFolder | undefined {
  const abs = resolve(path);
  let dir: string;
  if (existsSync(abs) && statSync(abs).isDirectory()) dir = abs;
  else if (basename(abs) === "preds.json" && existsSync(join(abs, "..", "run.json")))
    dir = resolve(abs, "..");
  else return undefined;
  return {
    dir,
    preds: join(dir, "preds.json"),
    runId: `patchloop-${basename(dir)}`,
    outputDir: join(dir, "eval"),
    selection: readRunSelection(dir),
  };
}

/** The selection run.json records, or undefined. */
export function readRunSelection(dir: string): RunSelection | undefined {
  const read = readRunJson(join(dir, "run.json"));
  if (!read.ok) return undefined;
  const d = read.run.info.dataset;
  const s = read.run.info.selection ?? {};
  if (!d) return undefined;
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const ids = s.instance_ids
    ? s.instance_ids.flatMap((v) => (typeof v === "string" ? v.split(/[\s,]+/) : [])).filter(Boolean)
    : [];
  return {
    subset: d.subset,
    split: str(d.split ?? undefined),
    slice: str(s.slice),
    filter: str(s.filter),
    shuffle: s.shuffle === true,
    ...(ids.length ? { instance_ids: ids } : {}),
  };
}

/** The rows a recorded selection picks out of the dataset (as `patchloop swebench` picked them). */
export function selectedRows(rows: SwebenchInstance[], sel: RunSelection): SwebenchInstance[] {
  return selectInstances(rows, {
    slice: sel.slice,
    filter: sel.filter,
    shuffle: sel.shuffle,
    instanceIds: sel.instance_ids,
  });
}

function selectionWords(sel: RunSelection): string {
  const parts: string[] = [];
  if (sel.instance_ids?.length) parts.push(`--instance-ids (${sel.instance_ids.length})`);
  if (sel.shuffle) parts.push("--shuffle");
  if (sel.filter) parts.push(`--filter ${sel.filter}`);
  if (sel.slice) parts.push(`--slice ${sel.slice}`);
  return parts.length ? `${parts.join(" ")} of ` : "all of ";
}

/** `the 5 instances the run took (--slice 0:5 of lite, test)`: "took", not "selected", which names a selection of patches (docs/selection.md). */
export function runScope(sel: RunSelection, n: number): SummaryScope {
  const of = sel.subset ? `${sel.subset}${sel.split ? `, ${sel.split}` : ""}` : "the dataset";
  return {
    kind: "selection",
    description: `the ${n} instance${n === 1 ? "" : "s"} the run took (${selectionWords(sel)}${of})`,
  };
}

/** `the whole dataset (lite, test: 300 instances)`, or the instances `--instance-ids` named. */
export function datasetScope(subset: string, split: string, n: number, named = false): SummaryScope {
  if (named) {
    return {
      kind: "selection",
      description: `the ${n} instance${n === 1 ? "" : "s"} named by --instance-ids (${subset}, ${split})`,
    };
  }
  return {
    kind: "dataset",
    description: `the whole dataset (${subset}, ${split}: ${plural(n, "instance")})`,
  };
}
