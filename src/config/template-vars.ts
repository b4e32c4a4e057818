import { arch, type as osType, version as osVersion, release } from "node:os";
import { shellQuote } from "../util/shell-quote.js";
import type { Config } from "./schema.js";

/** The command whose output's first line submits the task (contract: docs/protocols.md, "Submission"). */
export const SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/**
 * New files that never enter a patch, besides those the repository's ignore rules match: bytecode,
 * compiled extensions, packaging metadata, node_modules and top-level build output. Git pathspecs
 * (`*` crosses `/`) from the top of the work tree; they apply to untracked files only (a change to a
 * file the repository tracks is always part of the patch). docs/interactive.md lists them.
 */
export const PATCH_EXCLUDES = [
  "*.py[co]",
  "*__pycache__/*",
  "*.so",
  "*.egg-info/*",
  "*node_modules/*",
  "build/*",
  "dist/*",
] as const;

/** PATCH_EXCLUDES as git pathspecs that leave them out, each quoted for the shell. */
export const PATCH_PATHSPECS = PATCH_EXCLUDES.map((p) => shellQuote(`:/!${p}`)).join(" ");

/**
 * The submit command: unstages whatever the agent staged, stages every change (tracked files, then
 * new files that are neither ignored nor in PATCH_EXCLUDES), prints the staged diff against HEAD
 * (plain `git diff` output, the patch the SWE-bench harness applies) and unstages it all again, so
 * nothing is left staged.
 */
export const SUBMIT_COMMAND = `echo ${SUBMIT_MARKER} && git reset -q && git add -u && git add -A -- :/ ${PATCH_PATHSPECS} && git diff --cached && git reset -q`;

/** Where the agent is in its budget; given to every template. */
export interface StepVars {
  /** Number of model calls made so far (0 while rendering the first messages). */
  step: number;
  /** step_limit - step, or null when there is no step limit. */
  steps_left: number | null;
  /** USD spent so far. */
  cost: number;
  /** Seconds since the task started. */
  elapsed: number;
}

/** The step budget's phases as step numbers (`budget` in templates); null without a step limit. */
export interface BudgetSteps {
  /** Steps to spend exploring and reproducing (agent.budget.explore of the limit). */
  explore: number | null;
  /** The step by which the fix should be in place. */
  fix_by: number | null;
  /** The step by which the work should be verified and submitted. */
  submit_by: number | null;
  /** From this step on: submit now. */
  final: number | null;
}

/**
 * `agent.budget`'s fractions of `agent.step_limit` as step numbers: each rounded, at least 1, at
 * most the limit, and never before the phase ahead of it. At 100 steps: 15, 40, 60, 90.
 */
export function budgetSteps(agent: Config["agent"]): BudgetSteps {
  const limit = agent.step_limit;
  if (limit <= 0) return { explore: null, fix_by: null, submit_by: null, final: null };
  let floor = 1;
  const at = (fraction: number): number => {
    floor = Math.min(limit, Math.max(floor, Math.round(fraction * limit)));
    return floor;
  };
  const { explore, fix_by, submit_by, final } = agent.budget;
  return { explore: at(explore), fix_by: at(fix_by), submit_by: at(submit_by), final: at(final) };
}

/**
 * Variables of the system and instance templates (documented in docs/templates.md):
 * task, instance (the dataset row's fields, {} outside SWE-bench), cwd, system/release/version/machine
 * (platform facts, as mini-swe-agent gives them), step_limit, cost_limit, time_limit, context_limit,
 * budget (the step budget's phases), timeout (seconds per command), protocol, action_tag,
 * submit_command, localization (the fault localization's ranking), and the StepVars.
 */
export function baseContext(
  config: Config,
  task: string,
  instance: Record<string, unknown>,
  cwd: string,
  step: StepVars,
  /** The ranking made before step 1 (`agent.localize`; docs/localize.md); none: an empty one. */
  localization?: LocalizationVars,
): Record<string, unknown> {
  return {
    task,
    localization: localization ?? {
      enabled: config.agent.localize.enabled,
      text: "",
      files: [],
      symbols: [],
      error: "",
    },
    instance,
    cwd,
    system: osType(),
    release: release(),
    version: osVersion(),
    machine: arch() === "x64" ? "x86_64" : arch(),
    step_limit: config.agent.step_limit,
    cost_limit: config.agent.cost_limit,
    time_limit: config.agent.time_limit,
    context_limit: config.agent.context_limit,
    budget: budgetSteps(config.agent),
    timeout: config.environment.timeout,
    protocol: config.agent.protocol,
    action_tag: config.agent.action_tag,
    submit_command: SUBMIT_COMMAND,
    ...step,
  };
}

/** What an action produced, as the observation template sees it (`output.*`). */
export interface OutputVars {
  output: string;
  returncode: number;
  /**
   * Why the action failed beyond its exit status (a timeout, an interruption because the run is
   * stopping, a tool error), else "".
   */
  exception_info: string;
  timed_out: boolean;
}

export function stepVars(config: Config, step: number, cost: number, elapsed: number): StepVars {
  const limit = config.agent.step_limit;
  return { step, steps_left: limit > 0 ? Math.max(0, limit - step) : null, cost, elapsed };
}

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
