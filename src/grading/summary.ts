import type { SwebenchInstance } from "../dataset/types.js";
import { plural } from "../util/plural.js";
import type { ResolvedStatus } from "./grading.js";
import type { InstanceResult } from "./instance-result.js";
import type { HarnessVersion } from "./parsers/index.js";
import type { Prediction } from "./predictions.js";

/** Resolved and evaluated counts of one repository. */
export interface RepoTally {
  resolved: number;
  /** Instances of the repository with a prediction (empty ones included). */
  total: number;
}

/** What `total_instances` counts, in words the report prints. */
export interface SummaryScope {
  /** `dataset`: every row of the dataset split; `selection`: the rows a selection kept. */
  kind: "dataset" | "selection";
  /** e.g. `the whole dataset (lite, test)` or `the 5 instances the run took (--slice 0:5 of lite, test)`. */
  description: string;
}

/** The environment check over the run. */
export interface SummaryCheck {
  enabled: boolean;
  /** Instances whose check ran now or came from the cache. */
  checked: number;
  cached: number;
  mismatches: number;
  /**
   * Instances that got as far as an environment and were not checked although the check was on
   * (SWE-bench Pro rows, whose run script cannot run without the patch); their warnings say why.
   * Present only when there are any.
   */
  not_checked?: number;
  /** Why the check was off (only when it was). */
  off?: string;
}

/**
 * The run summary: exactly the harness's keys and meanings (`make_run_report`, schema_version 2;
 * under v5 also its infrastructure labels), then a `patchloop` section that splits the harness's
 * `error_ids` into their causes.
 */
export interface RunSummary {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  /** v5 only. */
  infra_failure_instances?: number;
  ambiguous_failure_instances?: number;
  empty_patch_instances: number;
  error_instances: number;
  unstopped_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  /** v5 only. */
  infra_failure_ids?: string[];
  ambiguous_failure_ids?: string[];
  failure_reasons?: Record<string, string>;
  error_ids: string[];
  unstopped_containers: string[];
  unremoved_images: string[];
  schema_version: 2;
  patchloop: {
    run_id: string;
    harness_version: HarnessVersion;
    /** What `total_instances` counts. */
    scope: SummaryScope;
    patch_apply_failed_ids: string[];
    timeout_ids: string[];
    /** Not graded: the tests misbehave in this environment without any patch (see env-check.ts). */
    environment_mismatch_ids: string[];
    /** Environment, data and parser errors: neither a failed patch, a timeout, a mismatch nor no results. */
    infrastructure_error_ids: string[];
    /**
     * The tests ran but their log gave no result for the instance's tests (reason in `errors`):
     * not graded, in `error_ids`, never in `unresolved_ids` (the harness itself counts these unresolved).
     */
    no_results_ids: string[];
    env_check: SummaryCheck;
    /** Per mismatched instance: the interpreter or image the tests ran with. */
    ran_with: Record<string, string>;
    resolutions: Record<string, ResolvedStatus>;
    errors: Record<string, string>;
    warnings: Record<string, string[]>;
    per_repo: Record<string, RepoTally>;
  };
}

/** Optional facts of `makeRunSummary`. */
export interface SummaryOptions {
  scope?: SummaryScope;
  /** Whether the environment check was on. */
  checkEnv?: boolean;
  /** Why it is off. */
  checkEnvOff?: string;
  /** v5: the infrastructure label of each unresolved or failed instance (infra-failure.ts). */
  infraLabels?: Record<string, { reason: string; tier: "environment" | "ambiguous" }>;
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

/**
 * Builds the summary as the harness does: `total_instances` is the (id-filtered) dataset,
 * `submitted_instances` every prediction, instances without a prediction are `incomplete_ids`,
 * empty patches `empty_patch_ids`, graded ones (report.json) `completed_ids` split into resolved
 * and unresolved, and every other submitted instance `error_ids`. One departure: a run whose log
 * gave no test results (`no_results`) is in `error_ids`, not `completed_ids`/`unresolved_ids` as
 * in the harness: it says nothing about the patch.
 */
export function makeRunSummary(
  rows: SwebenchInstance[],
  predictions: Prediction[],
  results: InstanceResult[],
  runId: string,
  harness: HarnessVersion,
  options: SummaryOptions = {},
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
    mismatch: new Set<string>(),
    infra: new Set<string>(),
    noResults: new Set<string>(),
  };
  const check: SummaryCheck = {
    enabled: options.checkEnv ?? false,
    checked: 0,
    cached: 0,
    mismatches: 0,
  };
  let notChecked = 0;
  if (!check.enabled) check.off = options.checkEnvOff ?? "not asked for";
  const ranWith: Record<string, string> = {};
  const warnings: Record<string, string[]> = {};
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
    if (r?.warnings?.length) warnings[id] = r.warnings;
    if (r?.check && r.check.status !== "off") {
      check.checked++;
      if (r.check.cached) check.cached++;
      if (r.check.status === "mismatch") check.mismatches++;
    } else if (check.enabled && r?.check) notChecked++;
    if (r?.outcome === "empty_patch") ids.empty.add(id);
    else if (r?.outcome === "resolved" || r?.outcome === "unresolved") {
      ids.completed.add(id);
      (r.outcome === "resolved" ? ids.resolved : ids.unresolved).add(id);
      if (r.outcome === "resolved") tally.resolved++;
    } else {
      ids.error.add(id);
      if (r?.outcome === "no_results") ids.noResults.add(id);
      else if (r?.outcome === "patch_apply_failed") ids.apply.add(id);
      else if (r?.outcome === "timeout") ids.timeout.add(id);
      else if (r?.outcome === "environment_mismatch") {
        ids.mismatch.add(id);
        if (r.check) ranWith[id] = r.check.ranWith;
      } else ids.infra.add(id);
      if (!r) errors[id] = "not evaluated (the run was stopped before this instance)";
    }
  }
  if (notChecked > 0) check.not_checked = notChecked;
  const labels = Object.entries(options.infraLabels ?? {})
    .filter(([id]) => ids.unresolved.has(id) || ids.error.has(id))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const v5 = harness === "5";
  const infraIds = labels.filter(([, l]) => l.tier === "environment").map(([id]) => id);
  const ambiguousIds = labels.filter(([, l]) => l.tier === "ambiguous").map(([id]) => id);
  return {
    total_instances: rows.length,
    submitted_instances: predictions.length,
    completed_instances: ids.completed.size,
    resolved_instances: ids.resolved.size,
    unresolved_instances: ids.unresolved.size,
    ...(v5
      ? { infra_failure_instances: infraIds.length, ambiguous_failure_instances: ambiguousIds.length }
      : {}),
    empty_patch_instances: ids.empty.size,
    error_instances: ids.error.size,
    unstopped_instances: 0,
    completed_ids: sorted(ids.completed),
    incomplete_ids: sorted(ids.incomplete),
    empty_patch_ids: sorted(ids.empty),
    submitted_ids: sorted(ids.submitted),
    resolved_ids: sorted(ids.resolved),
    unresolved_ids: sorted(ids.unresolved),
    ...(v5
      ? {
          infra_failure_ids: infraIds,
          ambiguous_failure_ids: ambiguousIds,
          failure_reasons: Object.fromEntries(labels.map(([id, l]) => [id, l.reason])),
        }
      : {}),
    error_ids: sorted(ids.error),
    unstopped_containers: [],
    unremoved_images: [],
    schema_version: 2,
    patchloop: {
      run_id: runId,
      harness_version: harness,
      scope: options.scope ?? {
        kind: "dataset",
        description: `the whole dataset (${plural(rows.length, "instance")})`,
      },
      patch_apply_failed_ids: sorted(ids.apply),
      timeout_ids: sorted(ids.timeout),
      environment_mismatch_ids: sorted(ids.mismatch),
      infrastructure_error_ids: sorted(ids.infra),
      no_results_ids: sorted(ids.noResults),
      env_check: check,
      ran_with: ranWith,
      resolutions,
      errors,
      warnings,
      per_repo: Object.fromEntries(Object.entries(perRepo).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}
