import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadPredictions } from "../grading/predictions.js";
import { PredsFile } from "../run-folder/preds-file.js";
import type { InstanceCandidates } from "./candidates.js";
import { runFolderCandidates } from "./run-folder-candidates.js";
import { type SelectOptions, type SelectRun, selectAll } from "./select-all.js";

export type { SelectOptions, SelectRun } from "./select-all.js";

/** Input selection cannot use (a missing folder, no candidates): the message says what and what to do. */
export class SelectInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectInputError";
  }
}

/**
 * Selects a patch for every instance of `options.rows` that the run folder `dir` holds (attempts
 * under `DIR/<id>/attempt-<k>/`, else its one patch), writing `DIR/preds.json` and
 * `DIR/selection.jsonl`; the attempts' trajectories are only read. The batch calls it at its end
 * when `run.select.enabled`.
 */
export async function selectRunFolder(dir: string, options: SelectOptions): Promise<SelectRun> {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    throw new SelectInputError(`${dir} is not a folder; pass a run folder made by patchloop swebench -o DIR`);
  }
  const preds = new PredsFile(abs);
  const items: InstanceCandidates[] = [];
  for (const row of options.rows) {
    const found = await runFolderCandidates(abs, row.instance_id, (id) => preds.get(id));
    if (found) items.push(found);
  }
  if (items.length === 0) {
    throw new SelectInputError(
      `${dir} holds no attempts, trajectories or preds.json entries for the ${options.rows.length} selected instance(s); check the folder and --dataset`,
    );
  }
  return selectAll(items, abs, options);
}

/**
 * Selects between prediction files, each one attempt (SWE-bench predictions JSONL, or a JSON list
 * or object keyed by id, as `patchloop eval` reads them), for every instance of `options.rows`
 * that some file predicts, writing `outputDir/preds.json` and `outputDir/selection.jsonl`.
 * Throws `PredictionsError` for a file eval would refuse, `SelectInputError` when no file
 * predicts any of the rows.
 */
export async function selectPredictions(
  files: string[],
  outputDir: string,
  options: SelectOptions,
): Promise<SelectRun> {
  if (files.length === 0) throw new SelectInputError("--predictions needs at least one file");
  const loaded = [];
  for (const f of files)
    loaded.push({ file: f, preds: new Map((await loadPredictions(f)).map((p) => [p.instance_id, p])) });
  const items: InstanceCandidates[] = [];
  for (const row of options.rows) {
    const candidates = loaded.flatMap(({ file, preds }) => {
      const p = preds.get(row.instance_id);
      if (!p) return [];
      return [
        {
          source: file,
          patch: typeof p.model_patch === "string" ? p.model_patch : null,
          modelName: p.model_name_or_path,
        },
      ];
    });
    if (candidates.length > 0) items.push({ instanceId: row.instance_id, candidates, problems: [] });
  }
  if (items.length === 0) {
    throw new SelectInputError(
      `none of the ${files.length} prediction file(s) predicts any of the ${options.rows.length} instance(s) of the dataset; check --dataset`,
    );
  }
  return selectAll(items, outputDir, options);
}
