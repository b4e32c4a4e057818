import type { JudgeRecord } from "./judge.js";

/** How the tests went for one candidate, as selection.jsonl records it. */
export interface CandidateTests {
  /** false: not run (the instance's test budget was spent); the vote then counts it as unknown. */
  tested: boolean;
  /** Tests that passed at the base commit and do not pass with the candidate. */
  broke: string[];
  /**
   * Of `broke`, the tests named after a function the patch changes and the issue names: the fix is
   * expected to change them, so among candidates breaking equally many, fewer others wins (issue-functions.ts).
   */
  expected_to_change?: string[];
  /** Tests run that passed at the base commit and still pass. */
  kept: number;
  /** Why there is no result (the run hung, no results in the log, the budget was spent). */
  error?: string;
  timed_out?: boolean;
  /** The result came from the cache (docs/selection.md "Cache"). */
  cached: boolean;
}

/** One candidate in selection.jsonl. */
export interface CandidateRecord {
  /** Position among the instance's candidates (0-based). */
  index: number;
  /** `attempt-<k>` (a run folder's attempt), or the prediction file it came from. */
  source: string;
  /** The attempt number k of `attempt-<k>`, the name the console and the folders use (run folders). */
  attempt?: number;
  exit_status?: string | null;
  model_name?: string;
  /** sha256 of the patch as written. */
  patch_sha256: string | null;
  /** `patch`, or why it was dropped: `empty`, `tests_only`, `scratch_only`, `does_not_apply`. */
  status: "patch" | "empty" | "tests_only" | "scratch_only" | "does_not_apply";
  /** Why it was dropped, in words. */
  dropped?: string;
  /** Lines changed outside the tests. */
  size?: number;
  /** The files it changes outside the tests. */
  files?: string[];
  /** The group of equivalent candidates it belongs to (1-based), when it was grouped. */
  group?: number;
  /** The normalized text key and the syntax-tree key (the latter where every changed Python file parses). */
  text_key?: string;
  ast_key?: string;
  regression?: CandidateTests;
  /** Reproduction tests passed of those kept; absent when none was kept. */
  reproduction?: { passed: number; of: number; error?: string; cached: boolean };
  /**
   * The examples whose output it changes (indexes; null: none comparable), and those of
   * them where it prints a line the issue states, and a hash of all they printed with it; absent
   * when they did not run.
   */
  examples?: {
    changed: number[] | null;
    stated: number[] | null;
    outputs_sha256?: string;
    error?: string;
    cached: boolean;
  };
}

/** One line of selection.jsonl: an instance, its candidates and why one was picked. */
export interface SelectionRecord {
  instance_id: string;
  candidates: CandidateRecord[];
  groups: Array<{ group: number; members: number[]; representative: number }>;
  /** The tests chosen and how they ran at the base commit; absent when regression tests were off or not needed. */
  regression?: {
    /** The modules run with the candidates. */
    files: string[];
    passing_at_base: number;
    /** The chosen modules left out at the base commit, each with why (too slow for its share of the budget, no passing test). */
    left_out?: string[];
    /** Why regression tests did not count (no test command, no relevant tests, the base run failed). */
    skipped?: string;
  };
  reproduction?: { kept: boolean; reason: string; tests?: string[] };
  /** The issue's own examples: how many were found, whether they ran at the base commit, why not. */
  examples?: { count: number; ran: boolean; reason: string };
  judge?: JudgeRecord;
  /** The chosen candidate's index; null when none could be chosen (preds.json gets an empty patch). */
  selected: number | null;
  /** The chosen candidate's `source` (`attempt-3`), as the console names it; null with `selected`. */
  selected_source?: string | null;
  /**
   * Why the tests planned for the candidates could not run (the environment did not open, no test
   * command, no result at the base commit): the pick is the vote's alone. Absent when they ran.
   */
  untested?: string;
  /**
   * What preds.json got: `written` (the pick), or `kept` (an untested pick, not accepted with
   * --accept-untested: preds.json keeps the patch it held, `kept_source`'s when a candidate has it).
   */
  preds_json?: "written" | "kept";
  kept_source?: string;
  /** Why it was picked, in words. */
  reason: string;
  /** Steps of the filters and the vote, in words. */
  steps: string[];
  /** What went wrong around this instance (unreadable attempts, an environment that would not open). */
  problems: string[];
  seconds: number;
}
