import type { Config } from "../config/schema.js";
import type { Environment } from "../environments/types.js";
import type { Model } from "../models/types.js";
import { localizationVars } from "./format.js";
import { localize } from "./localize.js";
import { readThroughEnvironment } from "./read-environment.js";
import { repoAnalyses } from "./repo-analyses.js";
import { DocStore } from "./repo-files.js";
import { rerankFiles } from "./rerank.js";
import type { LocalizationRecord, LocalizationVars } from "./types.js";

/**
 * Localization before step 1 (`agent.localize`): what `patchloop run` and `patchloop swebench`
 * hand to `runAgent` as `localization` (the template variable and the trajectory record).
 */
export interface AgentLocalization {
  vars: LocalizationVars;
  record: LocalizationRecord;
}

/**
 * Localizes the task in the environment's repository (read through the environment, in one pass).
 * Resolves undefined when `agent.localize.enabled` is off; never rejects: a failure becomes the
 * record's `error` and an empty ranking, and the agent starts without one. The optional re-rank
 * uses `model` (its cost goes into the record, which the agent adds to the task's budget).
 * `repo` (`owner/name`) reads into that repository's analyses ({@link repoAnalyses}: a batch
 * retains each pending instance's repository and releases it when the instance is over); without
 * it nothing is kept after the call.
 */
export async function localizeForAgent(
  config: Config,
  env: Environment,
  task: string,
  options: { model?: Model; signal?: AbortSignal; repo?: string } = {},
): Promise<AgentLocalization | undefined> {
  const lc = config.agent.localize;
  if (!lc.enabled) return undefined;
  const t0 = performance.now();
  const record: LocalizationRecord = {
    files: [],
    symbols: [],
    files_indexed: 0,
    files_skipped: { binary: 0, huge: 0, unreadable: 0 },
    read_seconds: 0,
    seconds: 0,
  };
  try {
    const snapshot = await readThroughEnvironment(
      env,
      options.repo === undefined ? new DocStore() : repoAnalyses().store(options.repo, () => new DocStore()),
      { maxFileBytes: lc.max_file_bytes },
      { timeout: config.environment.timeout, signal: options.signal },
    );
    record.files_indexed = snapshot.files.length;
    record.files_skipped = snapshot.skipped;
    record.read_seconds = round(snapshot.seconds);
    const r = await localize(task, snapshot, { topK: lc.top_k, topSymbols: lc.top_symbols });
    record.files = r.files;
    record.symbols = r.symbols;
    if (lc.rerank.enabled) {
      if (!options.model)
        record.rerank = {
          model_calls: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          cost: 0,
          order: [],
          error: "no model to re-rank with",
        };
      else {
        const rr = await rerankFiles(options.model, task, r.files, lc.rerank, options.signal);
        record.files = rr.files;
        record.rerank = rr.record;
      }
    }
  } catch (err) {
    record.error = `localization failed: ${(err as Error).message}`;
    record.files = [];
    record.symbols = [];
  }
  record.seconds = round((performance.now() - t0) / 1000);
  return {
    record,
    vars: localizationVars(record.files, record.symbols, record.error),
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
