/**
 * The localizer's output, one shape everywhere: the lines of `patchloop localize -o FILE.jsonl`,
 * the `localization` template variable and the trajectory's `info.localization`.
 */

/** A file of the ranking; `why` lists the signals that put it there, strongest first. */
export interface LocalizedFile {
  path: string;
  score: number;
  why: string[];
}

/** A class, function or method of a ranked file; `line` is 1-based. */
export interface LocalizedSymbol {
  path: string;
  name: string;
  line: number;
  score: number;
}

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

/** The `localization` template variable. */
export interface LocalizationVars {
  /** Whether `agent.localize.enabled` is on. */
  enabled: boolean;
  /** The ranking as text for a prompt ("" when disabled, failed or empty). */
  text: string;
  files: LocalizedFile[];
  symbols: LocalizedSymbol[];
  /** Why there is no ranking ("" when there is one, or when disabled). */
  error: string;
}
