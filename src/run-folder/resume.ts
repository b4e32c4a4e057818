import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ModelStats, NO_STATS } from "../agent/model-stats.js";
import { infoSummary } from "../agent/trajectory-schema.js";
import { EXIT_STATUSES, type ExitStatus, type ModelErrorInfo } from "../agent/trajectory-types.js";

/** Exit statuses that a re-run of the same command runs again (the others are final). */
export const RERUN_STATUSES: readonly ExitStatus[] = ["Interrupted", "EnvironmentError"];

/**
 * Whether an instance that ended so must run again: `Interrupted`, `EnvironmentError`, and a
 * `ModelError` whose server kept failing or could not be reached (retries exhausted): a model
 * server that is down must not turn the rest of a batch into final results.
 */
export function mustRunAgain(status: ExitStatus, modelError?: ModelErrorInfo): boolean {
  return (
    RERUN_STATUSES.includes(status) || (status === "ModelError" && modelError?.kind === "retries_exhausted")
  );
}

/**
 * `DIR/<id>/<id>.traj.json`, or `DIR/<id>/attempt-<k>/<id>.traj.json` for attempt k of a batch with
 * several attempts per instance (contract: README.md "Outputs").
 */
export function trajectoryPathFor(outputDir: string, instanceId: string, attempt?: number): string {
  return attempt === undefined
    ? join(outputDir, instanceId, `${instanceId}.traj.json`)
    : join(outputDir, instanceId, `attempt-${attempt}`, `${instanceId}.traj.json`);
}

/**
 * The numbers k of the attempt folders (`DIR/<id>/attempt-<k>/`) an instance's folder holds, in
 * order; none when it has no folder (the one reader of the attempts layout's folder names).
 */
export function attemptNumbers(outputDir: string, instanceId: string): number[] {
  const dir = join(outputDir, instanceId);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .map((name) => /^attempt-([1-9][0-9]{0,5})$/.exec(name)?.[1])
    .filter((k): k is string => k !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** What an earlier run left for one instance. */
export interface PriorState {
  /** The trajectory's exit status; null when it is missing, unreadable or still running. */
  status: ExitStatus | null;
  submission: string;
  stats: ModelStats;
  /** How the model failed, for a `ModelError`. */
  modelError?: ModelErrorInfo;
  /** Why the trajectory could not be used, for the log; undefined when it was fine or absent. */
  problem?: string;
}

/** Reads the trajectory of an instance (or of one attempt of it) as an earlier run left it. Never throws. */
export async function readPriorState(
  outputDir: string,
  instanceId: string,
  attempt?: number,
): Promise<PriorState> {
  let text: string;
  try {
    text = await readFile(trajectoryPathFor(outputDir, instanceId, attempt), "utf8");
  } catch {
    return { status: null, submission: "", stats: NO_STATS };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return {
      status: null,
      submission: "",
      stats: NO_STATS,
      problem: `unreadable trajectory: ${(err as Error).message}`,
    };
  }
  // tolerant: each field of the summary as an earlier patchloop wrote it, else its default
  const info = infoSummary(doc);
  const status = EXIT_STATUSES.find((s) => s === info.exit_status) ?? null;
  return {
    status,
    submission: info.submission ?? "",
    stats: { ...NO_STATS, ...info.model_stats },
    ...(info.model_error ? { modelError: info.model_error } : {}),
  };
}

/** Whether an instance with this earlier status is run (again) now. */
export function needsRun(prior: PriorState, redoExisting: boolean): boolean {
  return redoExisting || prior.status === null || mustRunAgain(prior.status, prior.modelError);
}
