/**
 * The one shape every trajectory format is normalised into, for the web viewer and `patchloop show`.
 * Loaders (normalize*.ts) fill it; renderers only read it. Numbers a format does not record are null,
 * never a guessed 0.
 */

import type { ModelStats } from "../../agent/model-stats.js";
import type { Usage } from "../../models/types.js";

/**
 * Model usage as a file recorded it: the fields of `ModelStats` (a trajectory's `model_stats`, in
 * its names), each null where the file's format does not record it.
 */
export type StatsView = { [K in keyof ModelStats]: ModelStats[K] | null };

/** Which file format a trajectory was read from. */
export type TrajectorySource =
  | "patchloop-1"
  | "mini-swe-agent-1.1"
  | "mini-swe-agent-1"
  | "mini-swe-agent-list"
  | "swe-agent";

/** One action the model asked for in a step. */
export interface ActionView {
  /** Tool name (`bash`, `str_replace_editor`, ...) or null for a plain shell command. */
  tool: string | null;
  /** The command, or the tool's arguments rendered as `key: value` lines. */
  text: string;
}

/** One message the scaffold sent back after a step (tool output, format error, notice). */
export interface ObservationView {
  text: string;
  /** Exit code of the command when recorded; null when unknown. */
  returncode: number | null;
  timedOut: boolean;
  /** The model's reply could not be parsed; this message tells it so. */
  formatError: boolean;
}

/**
 * One model call and what followed it. `index` is 1-based. Its tokens and cost in the names of a
 * call's `Usage` (null when not recorded); `cached_tokens`: what the server served from its prefix cache.
 */
export interface StepView
  extends Pick<StatsView, "prompt_tokens" | "completion_tokens" | "cost">,
    Pick<Usage, "cached_tokens"> {
  index: number;
  /** The reply's prose (fenced action blocks that are shown under ACTION are removed). */
  thought: string;
  /** The model's thinking, apart from its answer (shown collapsed), when the trajectory has it. */
  reasoning?: string;
  actions: ActionView[];
  observations: ObservationView[];
  /** patchloop's count of the prompt's prefix shared with the previous request (`extra.request`). */
  sharedPrefixTokens?: number;
  finishReason: string | null;
}

/** A message shown before the steps (system prompt, task, demonstrations). */
export interface PromptView {
  role: string;
  text: string;
  /** Length in characters (UTF-16 code units, as JavaScript counts them). */
  chars: number;
  /** A demonstration or other extra message before the first step. */
  note?: string;
}

export function promptView(role: string, text: string, note?: string): PromptView {
  return note ? { role, text, chars: text.length, note } : { role, text, chars: text.length };
}

/** A trajectory, with its totals (`StatsView`: `info.model_stats`, or summed over the steps). */
export interface TrajectoryView extends StatsView {
  source: TrajectorySource;
  instanceId: string | null;
  exitStatus: string | null;
  exitMessage: string | null;
  /** The final patch (may be empty). */
  submission: string;
  model: string | null;
  wallSeconds: number | null;
  system: PromptView | null;
  /** The first user message (the task as the model saw it). */
  firstUser: PromptView | null;
  /** Other messages before the first step (e.g. SWE-agent demonstrations). */
  preamble: PromptView[];
  steps: StepView[];
}

/** A file of an instance's evaluation (test output, eval log, ...), relative to the served folder. */
export interface EvalFile {
  /** `test output`, `eval log`, `eval.sh`, `report`, `environment check`, `environment check output`. */
  label: string;
  path: string;
}

/** What an evaluation report says about one instance. */
export interface EvalResult {
  /** null: not graded (an environment mismatch, an error) or unknown. */
  resolved: boolean | null;
  /**
   * Why it was not graded, from a patchloop run summary: `environment mismatch`, `patch did not
   * apply`, `timed out`, `infrastructure error`, `empty patch`; null when graded or unknown.
   */
  outcome: string | null;
  /** The reason the summary gives for `outcome`. */
  detail: string | null;
  /** The instance's evaluation files that are present. */
  files: EvalFile[];
  patchApplied: boolean | null;
  /** FAIL_TO_PASS tests that still fail. */
  failToPassFailures: string[];
  /** PASS_TO_PASS tests the patch broke. */
  passToPassFailures: string[];
  failToPassPassed: number;
  passToPassPassed: number;
  /** Relative path of the report this came from (under the served folder). */
  reportFile: string;
}

/** One row of the run overview (the tokens and cost of the trajectory it shows). */
export interface InstanceRow extends Pick<StatsView, "prompt_tokens" | "completion_tokens" | "cost"> {
  id: string;
  /** `owner/name` from a SWE-bench style id, else `(other)`. */
  repo: string;
  exitStatus: string | null;
  /** null: no evaluation report covers this instance, or it was not graded (`evalOutcome` says why). */
  resolved: boolean | null;
  /** `environment mismatch` and the like for instances a summary lists as not graded. */
  evalOutcome: string | null;
  steps: number | null;
  wallSeconds: number | null;
  /** Trajectory path relative to the served folder (`/`-separated), or null when there is none. */
  trajectory: string | null;
  patchChars: number | null;
  /** Why the trajectory could not be read, when it could not. */
  error: string | null;
  /**
   * With attempts (`DIR/<id>/attempt-<k>/`): every attempt; the row's other fields are those of the
   * attempt it shows. null for an instance without attempt folders.
   */
  attempts: InstanceAttempts | null;
}

/** How one attempt's patch graded (`eval` of a folder with attempts writes them to attempts.json). */
export type AttemptGrade = "resolved" | "unresolved" | "empty";

/** Which attempt an instance's row shows, and why. */
export type ShownBy =
  /** selection.jsonl's `selected` (`patchloop select`). */
  | "selection"
  /** run.json's `standing_attempt` (the patch preds.json holds until a selection picks one). */
  | "standing"
  /** Neither says: attempt 1, else the lowest attempt found. */
  | "first";

/** What a selection (selection.jsonl) recorded about one attempt as a candidate. */
export interface CandidateSignals {
  /** `patch`, or why the selection dropped it (`empty`, `tests_only`, `scratch_only`, `does_not_apply`). */
  status: string;
  /** Why it was dropped, in words. */
  dropped: string | null;
  /** Its group of equivalent patches (1-based); null when it was not grouped. */
  group: number | null;
  /** The regression tests run against it; null when none were. */
  regression: {
    tested: boolean;
    broke: string[];
    kept: number;
    error: string | null;
    timedOut: boolean;
  } | null;
  /** Reproduction tests it passed of those kept; null when none were kept. */
  reproduction: { passed: number; of: number; error: string | null } | null;
  /** The number the judge saw it under; null when it was not offered to the judge. */
  judgeNumber: number | null;
}

/** One attempt of an instance (the tokens and cost of its trajectory, else of run.json's record). */
export interface AttemptView extends Pick<StatsView, "prompt_tokens" | "completion_tokens" | "cost"> {
  attempt: number;
  /** Its trajectory, relative to the served folder; null when only run.json knows the attempt. */
  trajectory: string | null;
  exitStatus: string | null;
  steps: number | null;
  wallSeconds: number | null;
  patchChars: number | null;
  /** From attempts.json; null when no evaluation of the attempts was found. */
  grade: AttemptGrade | null;
  /** The attempt the instance's row shows (see InstanceAttempts.shownBy). */
  shown: boolean;
  /** Its signals in the selection; null without selection.jsonl or when it was no candidate there. */
  signals: CandidateSignals | null;
  /** Why its trajectory could not be read. */
  error: string | null;
}

/** What selection.jsonl says about one instance. */
export interface SelectionView {
  /** The selected attempt; null when the selection chose none (preds.json then holds an empty patch). */
  selectedAttempt: number | null;
  reason: string;
  steps: string[];
  /** The judge's answer, when a judge was asked. `chose` is an attempt number. */
  judge: { answer: string; chose: number | null; problem: string | null } | null;
  /** What went wrong around the instance, as the selection recorded it. */
  problems: string[];
}

/** The attempts of one instance, in attempt order. */
export interface InstanceAttempts {
  list: AttemptView[];
  /** The attempt the row shows. */
  shown: number;
  shownBy: ShownBy;
  /** null without selection.jsonl or without a line for this instance. */
  selection: SelectionView | null;
  /** USD of all its attempts (those that record a cost); null when none does. */
  totalCost: number | null;
}

export interface BarDatum {
  label: string;
  value: number;
  /** Text shown beside the bar (e.g. `3/4`). */
  caption: string;
}

export interface RunCharts {
  /** Resolved rate per repository, in percent (only instances with an evaluation). */
  resolvedByRepo: BarDatum[];
  /** Instances per step-count bin. */
  stepsHistogram: BarDatum[];
  /** Instances per exit status. */
  exitStatuses: BarDatum[];
}

/**
 * What run.json says about the whole run, over every invocation of the folder: model calls and USD
 * of every instance, earlier attempts of re-run instances included.
 */
export interface RunTotals extends Pick<StatsView, "api_calls" | "cost"> {
  /** `model.model_name` of the run's config. */
  model: string | null;
  /** The config layers it was run with (`info.config_sources`), e.g. `built-in config "swebench"`. */
  configSources: string[];
  /** The resolved config (secrets already masked in run.json). */
  config: unknown;
  /** Instances run.json holds a result for. */
  instances: number;
}

export interface RunOverview {
  /** The folder's name. */
  name: string;
  /** From run.json; null when the folder has none. */
  totals: RunTotals | null;
  /** Where evaluation reports were looked for (shown when none was found). */
  evalSearch: string;
  rows: InstanceRow[];
  charts: RunCharts;
  /** Relative paths of the evaluation reports that were read. */
  evalFiles: string[];
  /** Facts from run.json worth showing (model, times), as label → text. */
  runFacts: Record<string, string>;
  /** Files that were present but unreadable, with the reason. */
  problems: string[];
}

/** GET /api/overview: a run folder's overview, or the one trajectory a file PATH names. */
export type OverviewResponse =
  | { mode: "run"; overview: RunOverview }
  | { mode: "trajectory"; name: string; file: string };

/** GET /api/trajectory?path=REL: one normalised trajectory with its evaluation, if any. */
export interface TrajectoryResponse {
  file: string;
  view: TrajectoryView;
  eval: EvalResult | null;
  /** The attempt number, for an attempt's trajectory (`<id>/attempt-<k>/<id>.traj.json`) of a run folder. */
  attempt?: number;
  /** Where evaluation reports were looked for, when none covers the instance (run folders only). */
  evalSearch?: string;
}
