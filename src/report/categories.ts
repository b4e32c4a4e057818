/**
 * Where an instance ended, in categories a person can act on (docs/report.md). Pure: the facts in,
 * one category out.
 */

/** How grading went for one instance, as the eval reports say it. */
export interface GradeFacts {
  outcome:
    | "resolved"
    | "unresolved"
    | "empty_patch"
    | "patch_apply_failed"
    | "timeout"
    | "environment_mismatch"
    | "infrastructure"
    | "no_results";
  /** FAIL_TO_PASS tests that still fail, PASS_TO_PASS tests that now fail; null without a report.json. */
  fail_to_pass_failing: number | null;
  pass_to_pass_failing: number | null;
}

/** The facts `categorize` reads. */
export interface EndFacts {
  /** The agent's exit status (null: unknown or still running). */
  exit_status: string | null;
  exit_message: string;
  /** The patch preds.json holds is empty (or there is none). */
  patch_empty: boolean;
  /**
   * The batch recorded the end as an infrastructure failure (run.json `infrastructure: true`: the
   * environment or model server failed before the model's first reply, every run).
   */
  infrastructure?: boolean;
  /** Absent: not graded (no evaluation of this instance). */
  grade?: GradeFacts;
}

export type EndCategory =
  | "step_limit"
  | "cost_limit"
  | "time_limit"
  | "context_full"
  | "format_errors"
  | "environment_error"
  | "model_error"
  | "run_infrastructure"
  | "interrupted"
  | "not_finished"
  | "empty_patch"
  | "not_graded"
  | "not_applied"
  | "still_failing"
  | "broke_passing"
  | "unresolved"
  | "tests_timed_out"
  | "no_test_results"
  | "infrastructure"
  | "resolved";

/** Which part of the report a category belongs to. */
export type EndGroup = "not submitted" | "submitted" | "not graded" | "resolved";

/** Every category in the order the report lists them, with its group, words and what to do. */
export const CATEGORIES: ReadonlyArray<{ key: EndCategory; group: EndGroup; label: string; action: string }> =
  [
    {
      key: "step_limit",
      group: "not submitted",
      label: "step limit",
      action: "raise agent.step_limit, or find the loop in the trajectory",
    },
    {
      key: "cost_limit",
      group: "not submitted",
      label: "cost limit",
      action: "raise agent.cost_limit, or shorten observations",
    },
    {
      key: "time_limit",
      group: "not submitted",
      label: "time limit",
      action: "raise the time limit, or look for slow commands",
    },
    {
      key: "context_full",
      group: "not submitted",
      label: "context full",
      action: "history.mask_observations, shorter observations, a larger context",
    },
    {
      key: "format_errors",
      group: "not submitted",
      label: "repeated format errors",
      action: "check the protocol and the format-error template against the model's replies",
    },
    {
      key: "environment_error",
      group: "not submitted",
      label: "environment error",
      action: "look at run.log and the environment (image, clone, sandbox)",
    },
    {
      key: "model_error",
      group: "not submitted",
      label: "model error",
      action: "the server failed or refused; the batch runs it again when it was an outage",
    },
    {
      key: "run_infrastructure",
      group: "not submitted",
      label: "infrastructure failure before the model's first reply (not the model's)",
      action:
        "the environment or model server failed on every run (run.infra_retry); fix it and run the same command again",
    },
    {
      key: "interrupted",
      group: "not submitted",
      label: "interrupted",
      action: "run the same command again to finish it",
    },
    {
      key: "not_finished",
      group: "not submitted",
      label: "not finished (no exit status)",
      action: "run the same command again",
    },
    {
      key: "empty_patch",
      group: "submitted",
      label: "submitted an empty patch",
      action: "the model changed nothing: read its last steps",
    },
    {
      key: "not_graded",
      group: "submitted",
      label: "submitted, not graded yet",
      action: "patchloop eval DIR",
    },
    {
      key: "not_applied",
      group: "submitted",
      label: "submitted but the patch did not apply",
      action: "look at the patch's context lines; was it edited after the diff was taken?",
    },
    {
      key: "still_failing",
      group: "submitted",
      label: "applied; the failing tests still fail",
      action: "wrong or incomplete fix: compare with the issue",
    },
    {
      key: "broke_passing",
      group: "submitted",
      label: "applied; the fix broke tests that passed",
      action: "the change is too wide: see PASS_TO_PASS failures in report.json",
    },
    {
      key: "unresolved",
      group: "submitted",
      label: "applied, unresolved (no per-test report)",
      action: "grade with patchloop eval for the per-test detail",
    },
    {
      key: "tests_timed_out",
      group: "not graded",
      label: "the tests timed out in grading",
      action: "a hang in the patch or the environment: see test_output.txt",
    },
    {
      key: "no_test_results",
      group: "not graded",
      label: "the tests gave no results",
      action: "see no_results_reason in report.json (import error, missing runner)",
    },
    {
      key: "infrastructure",
      group: "not graded",
      label: "infrastructure failure in grading (not the model's)",
      action: "fix the environment and grade again; see the eval summary's errors",
    },
    { key: "resolved", group: "resolved", label: "resolved", action: "" },
  ];

const NOT_SUBMITTED: Record<string, EndCategory> = {
  TimeExceeded: "time_limit",
  ContextExceeded: "context_full",
  RepeatedFormatError: "format_errors",
  EnvironmentError: "environment_error",
  ModelError: "model_error",
  Interrupted: "interrupted",
};

/**
 * The category of one instance: resolved when grading resolved it (whatever the exit); else the exit
 * status when the agent did not submit (a `LimitsExceeded` is the cost limit when its message says
 * so, else the step limit); else what grading found. Grading failures that are not the patch's
 * doing (environment mismatch, infrastructure errors) have their own category, never a model failure,
 * and so does a run the batch recorded as an infrastructure failure (`run_infrastructure`).
 */
export function categorize(f: EndFacts): EndCategory {
  if (f.grade?.outcome === "resolved") return "resolved";
  if (f.exit_status === null) return "not_finished";
  if (f.exit_status === "LimitsExceeded")
    return /^cost limit/.test(f.exit_message) ? "cost_limit" : "step_limit";
  if (f.infrastructure && (f.exit_status === "EnvironmentError" || f.exit_status === "ModelError"))
    return "run_infrastructure";
  const notSubmitted = NOT_SUBMITTED[f.exit_status];
  if (notSubmitted) return notSubmitted;
  if (f.patch_empty) return "empty_patch";
  const g = f.grade;
  if (!g) return "not_graded";
  switch (g.outcome) {
    case "empty_patch":
      return "empty_patch";
    case "patch_apply_failed":
      return "not_applied";
    case "timeout":
      return "tests_timed_out";
    case "no_results":
      return "no_test_results";
    case "environment_mismatch":
    case "infrastructure":
      return "infrastructure";
    default:
      if ((g.pass_to_pass_failing ?? 0) > 0) return "broke_passing";
      if ((g.fail_to_pass_failing ?? 0) > 0) return "still_failing";
      return "unresolved";
  }
}
