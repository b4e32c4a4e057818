import type { LocalizationRecord } from "../localize/types.js";
import type { ChatMessage, ModelErrorKind } from "../models/types.js";
import type { ModelStats } from "./model-stats.js";
import type { DroppedFile } from "./patch-filter.js";

/** Exit statuses (contract: README.md "Outputs"). */
export const EXIT_STATUSES = [
  "Submitted",
  "LimitsExceeded",
  "TimeExceeded",
  "ContextExceeded",
  "RepeatedFormatError",
  "ModelError",
  "EnvironmentError",
  "Interrupted",
] as const;
export type ExitStatus = (typeof EXIT_STATUSES)[number];

/**
 * How the model client failed, for a `ModelError` exit. `retries_exhausted` means the server kept
 * failing or could not be reached (429, 5xx, refused or reset connections, timeouts): a batch
 * re-run runs such an instance again. `fatal` (400, 401, 404, a malformed reply) is final.
 */
export interface ModelErrorInfo {
  kind: ModelErrorKind;
  /** The HTTP status of the last try, when there was a response. */
  status?: number;
}

export interface TrajectoryInfo {
  /** null while the task is still running. */
  exit_status: ExitStatus | null;
  /** Why it ended, in words (e.g. which limit). */
  exit_message: string | null;
  /** The patch: the submitted text, or the work tree's diff (lines holding a known secret masked). */
  submission: string;
  /** Lines of the patch masked because they held a known secret value; absent when none. */
  submission_masked_lines?: number;
  /** File sections left out of the submitted patch (patch-filter.ts); absent when none. */
  submission_dropped?: DroppedFile[];
  model_stats: ModelStats;
  /** The resolved config the task ran with. */
  config: unknown;
  versions: Record<string, string>;
  timing: { started_at: string; ended_at: string | null; wall_seconds: number };
  instance_id?: string;
  /** Which attempt of the instance this is (1-based), in a batch with `run.attempts` above 1. */
  attempt_number?: number;
  model_name?: string;
  /** Present when the task ended with `ModelError`. */
  model_error?: ModelErrorInfo;
  /** Present when `agent.localize.enabled`: the ranking the templates got and what it cost. */
  localization?: LocalizationRecord;
  /** The `patchloop worker` that ran it (distributed runs, docs/distributed.md); absent otherwise. */
  worker?: { id: string; host: string; pid: number };
  /** As the task's outcome says (src/task/outcome.ts): runs again after infrastructure failures. */
  infra_retries?: number;
  /** As the task's outcome says: its last run, too, failed for the infrastructure's sake. */
  infrastructure?: true;
}

/**
 * Message `extra` fields written by the agent:
 * - assistant: `raw` (response body), `actions` ([{tool, args}] or [{command}]), `finish_reason`,
 *   `usage` (`Usage`: prompt_tokens, completion_tokens, reasoning and cached tokens when known), `cost`, `step`, `timestamp`.
 * - observation (tool / user): `returncode`, `timed_out`, `duration_ms`, `timestamp`, `step`;
 *   `format_error: true` on format-error messages; `kind: "length"` after a cut-off reply.
 */
export interface Trajectory {
  trajectory_format: "patchloop-1";
  info: TrajectoryInfo;
  messages: ChatMessage[];
}
