import {
  getEvalTestsReport,
  getResolutionStatus,
  type ResolvedStatus,
  statusMapFromLog,
  type TestsStatus,
} from "./grading.js";
import { type HarnessVersion, parseTestLog } from "./parsers/index.js";
import type { InstanceTestSpec } from "./test-spec.js";

/** The body of a harness report.json (`{ "<instance_id>": HarnessReportEntry }`). */
export interface HarnessReportEntry {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  /** v5 only. */
  infra_failure?: boolean;
  tests_status?: TestsStatus;
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
): GradedLog {
  const entry: HarnessReportEntry = {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: false,
    resolved: false,
  };
  if (harness === "5") entry.infra_failure = false;
  const { found, reason, map } = statusMapFromLog(
    log,
    (text) => parseTestLog(spec.logParser, text, { harness, normalizeDjango }),
    harness,
  );
  if (!found) return { report: { [instanceId]: entry }, notFoundReason: reason };
  entry.patch_successfully_applied = true;
  const tests = getEvalTestsReport(map, spec.failToPass, spec.passToPass, harness);
  const resolution = getResolutionStatus(tests);
  entry.resolved = resolution === "RESOLVED_FULL";
  entry.tests_status = tests;
  return { report: { [instanceId]: entry }, resolution };
}
