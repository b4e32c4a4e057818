import type { Feature } from "./features.js";
import type { FileKind } from "./repo-files.js";

/** How much each piece of evidence adds (features.ts) and how much of its score each kind of file keeps. */
export interface RankWeights {
  features: Record<Feature, number>;
  kinds: Record<FileKind, number>;
}

/**
 * The weights in use. Set by hand from what each signal means, then adjusted with
 * bench/localize-tune.ts on SWE-bench Lite rows (see docs/localize.md: how they were fitted and
 * the figures on the rows they were not fitted on).
 */
export const DEFAULT_WEIGHTS: RankWeights = {
  features: {
    traceback_innermost: 3.5,
    traceback_frame: 2,
    traceback_outermost: 2,
    path_named: 5,
    module_named: 1.5,
    defines_title: 6,
    defines_backticked: 4,
    defines_code: 3,
    defines_prose: 1.5,
    defines_qualified: 2,
    defines_containing: 2,
    error_message: 4,
    bm25: 4,
    bm25_rank: 1,
    bm25_chunk: 3.5,
    name_in_title: 3,
    name_in_issue: 1,
    folder_in_issue: 0.5,
    tested_by_named_test: 2,
    imported_by_top: 0.7,
  },
  kinds: { source: 1, test: 0.2, doc: 0.15, other: 0.2 },
};
