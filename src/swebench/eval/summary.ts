import type { SwebenchInstance } from "../types.js";
import type { ResolvedStatus } from "./grading.js";
import type { HarnessVersion } from "./parsers/index.js";
import type { Prediction } from "./predictions.js";
import type { InstanceResult } from "./run-instance.js";

/** Resolved and evaluated counts of one repository. */
export interface RepoTally {
  resolved: number;
  /** Instances of the repository with a prediction (empty ones included). */
  total: number;
}

/**
 * The run summary: exactly the harness's keys and meanings (`make_run_report`, schema_version 2),
 * then a `patchloop` section that splits the harness's `error_ids` into their causes.
 */
export interface RunSummary {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  unstopped_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  error_ids: string[];
  unstopped_containers: string[];
  unremoved_images: string[];
  schema_version: 2;
  patchloop: {
    run_id: string;
    harness_version: HarnessVersion;
    patch_apply_failed_ids: string[];
    timeout_ids: string[];
    /** Environment, data and parser errors: neither a failed patch nor a timeout. */
    infrastructure_error_ids: string[];
    resolutions: Record<string, ResolvedStatus>;
    errors: Record<string, string>;
    per_repo: Record<string, RepoTally>;
  };
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

/**
 * Builds the summary as the harness does: `total_instances` is the (id-filtered) dataset,
 * `submitted_instances` every prediction, instances without a prediction are `incomplete_ids`,
 * empty patches `empty_patch_ids`, graded ones (report.json) `completed_ids` split into resolved
 * and unresolved, and every other submitted instance `error_ids`.
 */
export function makeRunSummary(
  rows: SwebenchInstance[],
  predictions: Prediction[],
  results: InstanceResult[],
  runId: string,
  harness: HarnessVersion,
): RunSummary {
  const byId = new Map(results.map((r) => [r.instance_id, r]));
  const predicted = new Set(predictions.map((p) => p.instance_id));
  const ids = {
    completed: new Set<string>(),
    incomplete: new Set<string>(),
    empty: new Set<string>(),
    submitted: new Set<string>(),
    resolved: new Set<string>(),
    unresolved: new Set<string>(),
    error: new Set<string>(),
    apply: new Set<string>(),
    timeout: new Set<string>(),
    infra: new Set<string>(),
  };
  const resolutions: Record<string, ResolvedStatus> = {};
  const errors: Record<string, string> = {};
  const perRepo: Record<string, RepoTally> = {};
  for (const row of rows) {
    const id = row.instance_id;
    if (!predicted.has(id)) {
      ids.incomplete.add(id);
      continue;
    }
    ids.submitted.add(id);
    perRepo[row.repo] ??= { resolved: 0, total: 0 };
    const tally = perRepo[row.repo];
    tally.total++;
    const r = byId.get(id);
    if (r?.error) errors[id] = r.error;
    if (r?.resolution) resolutions[id] = r.resolution;
    if (r?.outcome === "empty_patch") ids.empty.add(id);
    else if (r?.outcome === "resolved" || r?.outcome === "unresolved") {
      ids.completed.add(id);
      (r.outcome === "resolved" ? ids.resolved : ids.unresolved).add(id);
      if (r.outcome === "resolved") tally.resolved++;
    } else {
      ids.error.add(id);
      if (r?.outcome === "patch_apply_failed") ids.apply.add(id);
      else if (r?.outcome === "timeout") ids.timeout.add(id);
      else ids.infra.add(id);
      if (!r) errors[id] = "not evaluated (the run was stopped before this instance)";
    }
  }
  return {
    total_instances: rows.length,
    submitted_instances: predictions.length,
    completed_instances: ids.completed.size,
    resolved_instances: ids.resolved.size,
    unresolved_instances: ids.unresolved.size,
    empty_patch_instances: ids.empty.size,
    error_instances: ids.error.size,
    unstopped_instances: 0,
    completed_ids: sorted(ids.completed),
    incomplete_ids: sorted(ids.incomplete),
    empty_patch_ids: sorted(ids.empty),
    submitted_ids: sorted(ids.submitted),
    resolved_ids: sorted(ids.resolved),
    unresolved_ids: sorted(ids.unresolved),
    error_ids: sorted(ids.error),
    unstopped_containers: [],
    unremoved_images: [],
    schema_version: 2,
    patchloop: {
      run_id: runId,
      harness_version: harness,
      patch_apply_failed_ids: sorted(ids.apply),
      timeout_ids: sorted(ids.timeout),
      infrastructure_error_ids: sorted(ids.infra),
      resolutions,
      errors,
      per_repo: Object.fromEntries(Object.entries(perRepo).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}
