/**
 * The localizer's output, one shape everywhere: the lines of `patchloop localize -o FILE.jsonl`,
 * the `localization` template variable and the trajectory's `info.localization`.
 */

// What a template sees of a ranking (the `localization` variable) is config's: its shapes live
// there (config/template-vars.ts), and are the ones the localizer writes.
export type { LocalizationVars, LocalizedFile, LocalizedSymbol } from "../config/template-vars.js";

import type { LocalizedFile, LocalizedSymbol } from "../config/template-vars.js";

/** One instance's ranking, as written to the JSONL output. */
export interface LocalizationLine {
  instance_id: string;
  files: LocalizedFile[];
  symbols: LocalizedSymbol[];
  /** With `agent.localize.rerank.enabled`: the re-rank's call, the order it named, why nothing moved. */
  rerank?: RerankRecord;
  /** Present only when the instance could not be localized (files and symbols are then empty). */
  error?: string;
}

/** What a ranking cost and covered. */
export interface LocalizationStats {
  /** Text files ranked. */
  files_indexed: number;
  /** Files left out: binary, over the size limit, or unreadable. */
  files_skipped: { binary: number; huge: number; unreadable: number };
  /** Seconds reading the repository, and in all (reading, ranking, an optional re-rank). */
  read_seconds: number;
  seconds: number;
}

/** The optional model re-rank of a localization (`agent.localize.rerank`): its cost and outcome. */
export interface RerankRecord {
  model_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  /** The candidate paths the reply named, in its order. */
  order: string[];
  /**
   * Why the ranking was kept as it was (a failed call, a reply naming no candidate, a reply naming
   * them in the order they already had).
   */
  error?: string;
}

/** What the trajectory records (`info.localization`): the ranking the templates got and its cost. */
export interface LocalizationRecord extends LocalizationStats {
  files: LocalizedFile[];
  symbols: LocalizedSymbol[];
  rerank?: RerankRecord;
  /** Set when the localization could not be made (the agent then starts without it). */
  error?: string;
}
