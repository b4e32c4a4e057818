import { readFile } from "node:fs/promises";

/** The part of a run summary (the harness's or patchloop's) that a comparison reads. */
export interface ComparableSummary {
  resolved_ids: string[];
  submitted_ids?: string[];
  completed_ids?: string[];
  unresolved_ids?: string[];
  error_ids?: string[];
  empty_patch_ids?: string[];
}

/** Instances whose resolved state differs between two runs that both evaluated them. */
export interface Flips {
  /** Resolved now, not resolved in the other run. */
  nowResolved: string[];
  /** Resolved in the other run, not now. */
  nowUnresolved: string[];
  /** Instances both runs have. */
  common: number;
}

function evaluated(s: ComparableSummary): Set<string> {
  return new Set([
    ...(s.submitted_ids ?? []),
    ...(s.completed_ids ?? []),
    ...s.resolved_ids,
    ...(s.unresolved_ids ?? []),
    ...(s.error_ids ?? []),
    ...(s.empty_patch_ids ?? []),
  ]);
}

/** Compares two summaries over the instances both runs have. */
export function compareSummaries(current: ComparableSummary, other: ComparableSummary): Flips {
  const a = evaluated(current);
  const b = evaluated(other);
  const common = [...a].filter((id) => b.has(id)).sort();
  const ra = new Set(current.resolved_ids);
  const rb = new Set(other.resolved_ids);
  return {
    nowResolved: common.filter((id) => ra.has(id) && !rb.has(id)),
    nowUnresolved: common.filter((id) => !ra.has(id) && rb.has(id)),
    common: common.length,
  };
}

/** Reads a run summary JSON (the harness's `<model>.<run_id>.json` or patchloop's). */
export async function loadComparableSummary(path: string): Promise<ComparableSummary> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new Error(`--compare ${path}: cannot read it as JSON (${(err as Error).message})`);
  }
  const s = data as ComparableSummary;
  if (!s || !Array.isArray(s.resolved_ids)) {
    throw new Error(
      `--compare ${path}: not a run summary (no resolved_ids list); pass a harness or patchloop run report`,
    );
  }
  return s;
}
