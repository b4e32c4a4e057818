import type { EnvCheckVerdict } from "./env-check.js";
import type { EnvironmentProvider } from "./eval-environment.js";
import type { ResolvedStatus } from "./grading.js";
import type { HarnessReportEntry } from "./instance-report.js";
import type { HarnessVersion } from "./parsers/index.js";
import type { SpecOverrides } from "./test-spec.js";

/**
 * What grading one prediction takes (the run's settings) and gives (its result): the types shared
 * by run-instance.ts, the own-harness runs (run-own-harness.ts), the run's loop and its summary.
 */

/**
 * How one prediction ended. `resolved`/`unresolved`: graded (report.json written); the others
 * count as `error_ids` in the summary, except `empty_patch` (not run). `no_results`: the tests
 * ran but their log gave no result for the instance's tests (report.json written, without
 * `tests_status`, with `no_results_reason`): not graded, an infrastructure failure, never
 * unresolved. `environment_mismatch`: the environment check found that the tests misbehave
 * without any patch, so the instance was not graded. patchloop keeps the reasons apart.
 */
export type InstanceOutcome =
  | "resolved"
  | "unresolved"
  | "empty_patch"
  | "patch_apply_failed"
  | "timeout"
  | "no_results"
  | "environment_mismatch"
  | "error";

/** The outcomes that say nothing about the patch: the environment, the data or the grading failed. */
export const INFRASTRUCTURE_OUTCOMES: ReadonlySet<InstanceOutcome> = new Set([
  "no_results",
  "environment_mismatch",
  "error",
]);

/** The environment check as an instance's result carries it. */
export interface InstanceCheck {
  status: EnvCheckVerdict["status"] | "off";
  /** The verdict came from the cache (the tests did not run again). */
  cached: boolean;
  problems: string[];
  /** `/usr/bin/python3 3.11.2, PYTHONPATH <work tree>/src`, or the image: what to fix. */
  ranWith: string;
}

/** The result of one prediction. */
export interface InstanceResult {
  instance_id: string;
  repo: string;
  outcome: InstanceOutcome;
  /** RESOLVED_FULL / PARTIAL / NO for graded instances. */
  resolution?: ResolvedStatus;
  /** The report.json body, for graded instances. */
  report?: Record<string, HarnessReportEntry>;
  /** What went wrong, in words (apply failure, timeout, environment or data error, no results). */
  error?: string;
  /** The environment check, where one ran or was turned off. */
  check?: InstanceCheck;
  /** v5's infrastructure label of a failed instance (infra-failure.ts; advisory, set by the run's loop). */
  infra?: { reason: string; tier: "environment" | "ambiguous" };
  /** Things the user should know that did not stop the grading (e.g. a package from outside the work tree with the check off). */
  warnings?: string[];
  seconds: number;
}

/** Settings shared by every instance of a run. */
export interface InstanceContext {
  /** `<output>/<run_id>/<instance_id>`. */
  logDir: string;
  provider: EnvironmentProvider;
  /** Seconds eval.sh may run. */
  timeout: number;
  harness: HarnessVersion;
  /** Re-run the spec's install in eval.sh; default: the environment's choice. */
  install?: boolean;
  specs?: SpecOverrides;
  normalizeDjango?: boolean;
  /** `--python`: the interpreter of host runs (local, bwrap). */
  python?: string;
  /** Run the environment check first (see env-check.ts); false records it as off. */
  checkEnv?: boolean;
  /** Folder of cached checks (see `defaultEnvCheckCacheDir`); none: nothing is cached. */
  checkCacheDir?: string;
  /** `--pro-scripts`: a checkout of scaleapi/SWE-bench_Pro-os (SWE-bench Pro's run scripts and parsers). */
  proScripts?: string;
}

/**
 * The one verdict of an instance, as the console line, the summary and report.json all give it:
 * the harness's resolution for a graded instance (`RESOLVED_FULL` only when resolved), otherwise
 * the outcome in words (`no test results`, `environment mismatch`, ...), with v5's infrastructure
 * label after it where there is one.
 */
export function verdictText(r: InstanceResult): string {
  const graded = r.outcome === "resolved" || r.outcome === "unresolved";
  const base =
    graded && r.resolution
      ? r.resolution
      : r.outcome === "no_results"
        ? "no test results"
        : r.outcome.replaceAll("_", " ");
  return r.infra ? `${base} (infrastructure label: ${r.infra.reason}, ${r.infra.tier})` : base;
}

/**
 * The harness's resolution of a graded instance, made to agree with `resolved`: RESOLVED_FULL
 * exactly when resolved (a grading whose lists are empty, e.g. tests absent from the log, must not
 * read RESOLVED_FULL beside an unresolved verdict).
 */
export function agreeingResolution(resolved: boolean, resolution: ResolvedStatus): ResolvedStatus {
  if (resolved) return "RESOLVED_FULL";
  return resolution === "RESOLVED_FULL" ? "RESOLVED_NO" : resolution;
}
