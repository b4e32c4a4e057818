import {
  getEvalTestsReport,
  getResolutionStatus,
  type ResolvedStatus,
  statusMapFromLog,
  type TestsStatus,
} from "./grading.js";
import { classifyInfraFailure } from "./infra-failure.js";
import { type HarnessVersion, parseTestLog } from "./parsers/index.js";
import type { InstanceTestSpec } from "./test-spec.js";

/** Where and with what an instance was graded (patchloop's addition to report.json). */
export interface EnvironmentRecord {
  /** `local`, `bwrap`, `docker`, `podman`. */
  kind: string;
  image?: string;
  platform?: string;
  /** The Python that ran the tests, as it reported itself; null when none answered. */
  python: {
    executable: string;
    version: string;
    /** Host runs: the declared interpreter, PYTHONPATH and venv (also the first lines of eval.sh). */
    declared?: { interpreter: string; PYTHONPATH: string; venv?: string };
    work_tree: string;
    /** The repository's own package and where it was imported from. */
    package: { name: string; file: string | null; inside_work_tree: boolean } | null;
  } | null;
  /** The environment check of this instance (env_check.json has the details). */
  check?: { status: "ok" | "timeout" | "off"; cached: boolean; problems: string[] };
}

/** The body of a harness report.json (`{ "<instance_id>": HarnessReportEntry }`). */
export interface HarnessReportEntry {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  /** v5 only: the logs show the environment broke (advisory, see infra-failure.ts). */
  infra_failure?: boolean;
  /** v5 only, when a signature matched. */
  infra_failure_reason?: string;
  tests_status?: TestsStatus;
  /** v5: the test command's recorded exit status (patchloop's addition). */
  test_exit_code?: number;
  /** Why the log gave no usable results, when it gave none (patchloop's addition). */
  no_results_reason?: string;
  /** patchloop's addition. */
  environment?: EnvironmentRecord;
}

/** A graded log: the harness's report, plus what patchloop reports beside it. */
export interface GradedLog {
  report: Record<string, HarnessReportEntry>;
  /** RESOLVED_FULL / PARTIAL / NO; undefined when the log gave no results ("not found"). */
  resolution?: ResolvedStatus;
  /** Why the log gave no results. */
  notFoundReason?: string;
}

/**
 * `get_eval_report` for a test_output.txt: the markers, the parser (with django name
 * normalisation), then the F2P/P2P grading. May throw `ParserCrash` where the harness's parser
 * would raise.
 */
export function gradeTestOutput(
  instanceId: string,
  log: string,
  spec: InstanceTestSpec,
  harness: HarnessVersion,
  normalizeDjango = true,
  instanceLog = "",
): GradedLog {
  const entry: HarnessReportEntry = {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: false,
    resolved: false,
  };
  if (harness === "5") entry.infra_failure = false;
  const { found, reason, map, exitCode } = statusMapFromLog(
    log,
    (text) => parseTestLog(spec.logParser, text, { harness, normalizeDjango, context: spec.parserContext }),
    harness,
  );
  const done = (extra: Omit<GradedLog, "report"> = {}): GradedLog => {
    if (exitCode !== undefined) entry.test_exit_code = exitCode;
    return { report: { [instanceId]: entry }, ...extra };
  };
  if (!found) {
    if (harness === "5") {
      const label = classifyInfraFailure(`${log}\n${instanceLog}`);
      if (label) {
        entry.infra_failure = label.tier === "environment";
        entry.infra_failure_reason = label.reason;
      }
    }
    if (reason) entry.no_results_reason = reason;
    return done({ notFoundReason: reason });
  }
  entry.patch_successfully_applied = true;
  const tests = getEvalTestsReport(map, spec.failToPass, spec.passToPass, harness, spec.evalType);
  const resolution = getResolutionStatus(tests);
  entry.resolved = resolution === "RESOLVED_FULL";
  entry.tests_status = tests;
  return done({ resolution });
}
