import { rankFiles } from "./rank.js";
import type { RepoSnapshot } from "./repo-files.js";
import type { LocalizedFile, LocalizedSymbol } from "./types.js";

/** The knobs of one localization (config `agent.localize`, or the `patchloop localize` flags). */
export interface LocalizeSettings {
  /** Files in the ranking. */
  topK: number;
  /** Symbols in the ranking. */
  topSymbols: number;
}

export interface Localization {
  files: LocalizedFile[];
  symbols: LocalizedSymbol[];
  /** Seconds ranking (reading excluded: `snapshot.seconds`). */
  rankSeconds: number;
  /** Milliseconds of each step of the ranking (rank.ts). */
  phases: Record<string, number>;
}

/** Ranks the files and symbols of a snapshot for an issue. Rejects when the issue text is empty. */
export async function localize(
  problemStatement: unknown,
  snapshot: RepoSnapshot,
  settings: LocalizeSettings,
): Promise<Localization> {
  if (typeof problemStatement !== "string" || problemStatement.trim() === "") {
    throw new Error(
      `the issue text is ${typeof problemStatement === "string" ? "empty" : `missing (problem_statement is ${problemStatement === undefined ? "absent" : typeof problemStatement})`}: nothing to localize from`,
    );
  }
  const t0 = performance.now();
  const r = await rankFiles(problemStatement, snapshot, {
    topK: settings.topK,
    topSymbols: settings.topSymbols,
  });
  return { ...r, rankSeconds: (performance.now() - t0) / 1000 };
}
