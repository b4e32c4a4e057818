import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { resolveTestRunner, type SpecOverrides, type TestRunner } from "../grading/test-spec.js";
import { createModel } from "../models/factory/create-model.js";
import type { Model } from "../models/types.js";
import { PredsFile, predOf } from "../run-folder/preds-file.js";
import { CoalescingWriter } from "../util/coalescing-writer.js";
import { SelectCache } from "./cache.js";
import type { InstanceCandidates } from "./candidates.js";
import { publicRow } from "./public-row.js";
import type { SelectionRecord } from "./record.js";
import { selectInstance } from "./select-instance.js";
import { Workbench } from "./workbench.js";

/** What selecting needs besides the candidates. */
export interface SelectOptions {
  /** The config: `run.select`, the environment section, and the model section the judge's and reproducer's layers go over. */
  config: Config;
  /** The dataset rows of the instances (their hidden fields are never read). */
  rows: SwebenchInstance[];
  reposDir?: string;
  /** Where the checkouts of local and bwrap workbenches are made (default the system temp folder). */
  workRoot?: string;
  specs?: SpecOverrides;
  python?: string;
  /** Instances selected at once (default 1). */
  workers?: number;
  /**
   * Write the vote's pick of an instance whose planned tests could not run (`untested` in its
   * record) to preds.json; by default preds.json keeps the patch it holds for it.
   */
  acceptUntested?: boolean;
  /** Models to use instead of the config's (tests pass a scripted one). */
  judge?: Model;
  reproducer?: Model;
  signal?: AbortSignal;
  onRecord?: (record: SelectionRecord, done: number, total: number) => void;
}

/** What a selection wrote. */
export interface SelectRun {
  records: SelectionRecord[];
  predsPath: string;
  selectionPath: string;
}

/** A model of the run's model section with `layer` laid over it, when `enabled`. */
function modelFor(
  config: Config,
  enabled: boolean,
  layer: Record<string, unknown>,
  given?: Model,
): Model | undefined {
  if (!enabled) return undefined;
  return given ?? createModel({ ...config.model, ...layer } as Config["model"]);
}

/**
 * Selects every instance of `items` into `outputDir`: `preds.json` (through `PredsFile`, the one
 * writer; other instances' entries kept) gets the selected patch, or "" when none could be chosen;
 * `selection.jsonl` one line per instance, rewritten after each instance in the order of `items`.
 * Throws `PredsFileError` before anything runs when preds.json is there but unreadable.
 */
export async function selectAll(
  items: InstanceCandidates[],
  outputDir: string,
  o: SelectOptions,
): Promise<SelectRun> {
  await mkdir(outputDir, { recursive: true });
  const preds = new PredsFile(outputDir);
  const cfg = o.config.run.select;
  const judge = modelFor(o.config, cfg.judge.enabled, cfg.judge.model, o.judge);
  const reproducer = modelFor(o.config, cfg.reproduce.enabled, cfg.reproduce.model, o.reproducer);
  const rows = new Map(o.rows.map((r) => [r.instance_id, r]));
  const records: Array<SelectionRecord | undefined> = items.map(() => undefined);
  const selectionPath = join(outputDir, "selection.jsonl");
  const writer = new CoalescingWriter(selectionPath, () =>
    records
      .filter((r) => r !== undefined)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(""),
  );
  const kind = o.config.environment.environment_class;
  let next = 0;
  let done = 0;
  const one = async (i: number) => {
    const item = items[i];
    const full = rows.get(item.instanceId);
    if (!full) throw new Error(`no dataset row for ${item.instanceId}`);
    const row = publicRow(full);
    let runner: TestRunner | undefined;
    let runnerProblem: string | undefined;
    try {
      runner = resolveTestRunner(row as SwebenchInstance, o.specs, o.python);
    } catch (err) {
      runnerProblem = (err as Error).message;
    }
    const fresh = () =>
      Workbench.open(row, {
        environment: o.config.environment,
        reposDir: o.reposDir,
        workRoot: o.workRoot,
        runId: "patchloop-select",
        runner,
        timeout: cfg.wall_timeout,
      });
    let bench: Promise<Workbench> | undefined;
    const open = () => {
      bench ??= fresh();
      return bench;
    };
    let record: SelectionRecord;
    try {
      record = await selectInstance(item.instanceId, item.candidates, {
        row,
        config: cfg,
        bench: open,
        freshBench: fresh,
        cache: new SelectCache(outputDir, item.instanceId),
        kind,
        runner,
        runnerProblem,
        judge,
        reproducer,
        signal: o.signal,
        problems: item.problems,
      });
    } finally {
      if (bench) await (await bench.catch(() => undefined))?.close().catch(() => undefined);
    }
    const chosen = record.selected === null ? undefined : item.candidates[record.selected];
    const held = preds.get(item.instanceId);
    if (record.untested && !o.acceptUntested && held) {
      // an untested pick never replaces what preds.json holds in silence: the record and the console say so
      record.preds_json = "kept";
      const same = item.candidates.find((c) => typeof c.patch === "string" && c.patch === held.model_patch);
      if (same) record.kept_source = same.source;
    } else {
      record.preds_json = "written";
      await preds.set(
        predOf(
          { instance_id: item.instanceId, patch: typeof chosen?.patch === "string" ? chosen.patch : "" },
          chosen?.modelName ?? item.candidates[0]?.modelName ?? "patchloop-select",
        ),
      );
    }
    records[i] = record;
    await writer.write();
    done++;
    o.onRecord?.(record, done, items.length);
  };
  const worker = async () => {
    while (next < items.length && !o.signal?.aborted) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.workers ?? 1) }, worker));
  await writer.write();
  return { records: records.filter((r) => r !== undefined), predsPath: preds.path, selectionPath };
}
