import type { Config } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { openInstance } from "../instance/open.js";
import { localize } from "../localize/localize.js";
import { readThroughEnvironment } from "../localize/read-environment.js";
import { readWorkTree } from "../localize/read-worktree.js";
import { repoAnalyses } from "../localize/repo-analyses.js";
import { DocStore, type ReadLimits, type RepoSnapshot } from "../localize/repo-files.js";
import { type RerankSettings, rerankFiles } from "../localize/rerank.js";
import type { LocalizationLine, RerankRecord } from "../localize/types.js";
import type { Model } from "../models/types.js";

/** The repository of a SWE-bench row at its base commit, and how to let it go. */
export type RepoReader = (
  row: SwebenchInstance,
  signal?: AbortSignal,
) => Promise<{ snapshot: RepoSnapshot; release: () => Promise<void> }>;

/** Where a reader finds the rows' repositories. */
export interface ReaderPlace {
  /** A folder of `owner__repo` clones: checkouts of them are read on this machine, whatever the environment. */
  reposDir?: string;
  /** Where checkouts are made. */
  workRoot: string;
  /** Label of the containers. */
  runId?: string;
}

/** A new store of analysed files, for a repository not held yet. */
const newStore = () => new DocStore();

/**
 * The repository of each row opened for reading (`openInstance`): a checkout of `reposDir` read
 * from this machine, or else the instance's own environment (a docker or podman container of its
 * image) read through it.
 */
export function instanceReader(config: Config, place: ReaderPlace, limits: ReadLimits): RepoReader {
  return async (row, signal) => {
    const opened = await openInstance(config.environment, row, "read", place);
    try {
      const snapshot = opened.env
        ? await readThroughEnvironment(opened.env, repoAnalyses().store(row.repo, newStore), limits, {
            root: opened.repoDir,
            timeout: Math.max(config.environment.timeout, 300),
            signal,
          })
        : await readWorkTree(opened.repoDir, repoAnalyses().store(row.repo, newStore), limits);
      return { snapshot, release: opened.close };
    } catch (err) {
      await opened.close().catch(() => undefined);
      throw err;
    }
  };
}

export interface RowSettings {
  topK: number;
  topSymbols: number;
  /** With a model: the optional re-rank. */
  rerank?: { model: Model; settings: RerankSettings };
}

export interface RowResult {
  line: LocalizationLine;
  seconds: number;
  filesIndexed: number;
  rerank?: RerankRecord;
}

/**
 * Localizes one row: a clear error in `line.error` (files and symbols empty) when the row has no
 * problem statement, its repository cannot be had or its base commit is missing; never rejects.
 */
export async function localizeRow(
  row: SwebenchInstance,
  read: RepoReader,
  settings: RowSettings,
  signal?: AbortSignal,
): Promise<RowResult> {
  const t0 = performance.now();
  const id = String(row.instance_id);
  const fail = (message: string): RowResult => ({
    line: { instance_id: id, files: [], symbols: [], error: message },
    seconds: (performance.now() - t0) / 1000,
    filesIndexed: 0,
  });
  if (typeof row.problem_statement !== "string" || row.problem_statement.trim() === "")
    return fail(
      `the row has ${typeof row.problem_statement === "string" ? "an empty" : "no"} problem_statement: there is no issue text to localize from`,
    );
  let got: Awaited<ReturnType<RepoReader>>;
  try {
    got = await read(row, signal);
  } catch (err) {
    return fail((err as Error).message);
  }
  try {
    const r = await localize(row.problem_statement, got.snapshot, settings);
    let files = r.files;
    let rerank: RerankRecord | undefined;
    if (settings.rerank) {
      const rr = await rerankFiles(
        settings.rerank.model,
        row.problem_statement,
        files,
        settings.rerank.settings,
        signal,
      );
      files = rr.files;
      rerank = rr.record;
    }
    return {
      line: { instance_id: id, files, symbols: r.symbols, ...(rerank ? { rerank } : {}) },
      seconds: (performance.now() - t0) / 1000,
      filesIndexed: got.snapshot.files.length,
      rerank,
    };
  } catch (err) {
    return fail(`localization failed: ${(err as Error).message}`);
  } finally {
    await got.release().catch(() => undefined);
  }
}
