import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { EXIT_STATUSES, type ExitStatus } from "../agent/trajectory-types.js";
import { versions } from "../agent/versions.js";
import { redactSecrets } from "../config/redact.js";
import type { Config } from "../config/schema.js";
import { createScrubber, scrubStringValues, secretsOf } from "../config/secret-values.js";
import { type InstanceLine, type RunJsonFields, readRunJson } from "../run-folder/run-json.js";
import type { recordOf } from "../task/outcome.js";
import { CoalescingWriter } from "../util/coalescing-writer.js";
import type { ReplicaCounts, StopReason } from "./types.js";

/** An instance's line in run.json: what the latest run of it gave (`seconds` etc. absent when only its trajectory is known). */
export type InstanceRecord = (
  | ReturnType<typeof recordOf>
  | { exit_status: ExitStatus; api_calls: number; cost: number }
) &
  FolderFacts;

/** What only run.json records of an instance, beside its outcome. */
export interface FolderFacts {
  /**
   * Runs in a row that ended with the server failing on this instance (ModelError after retries);
   * at MAX_OUTAGE_RUNS the result is final.
   */
  model_error_runs?: number;
  /** Model calls and USD of this instance's (or attempt's) earlier runs (when it was run again). */
  earlier_calls?: number;
  earlier_cost?: number;
  /** With attempts: the attempt whose patch preds.json holds for the instance (until a selection picks one). */
  standing_attempt?: number;
  /** With attempts: the attempt that replaces this failed one (`run.attempt_policy.replace_failed`). */
  replaced_by?: number;
}

/** The contents of run.json. */
export interface RunJson {
  run_format: "patchloop-run-1";
  /** `running` while the process works; `finished`, `stopped` (a limit) or `interrupted` at the end. */
  state: "running" | "finished" | "stopped" | "interrupted";
  started_at: string;
  ended_at: string | null;
  stopped_by: StopReason;
  versions: Record<string, string>;
  /** The resolved config, secrets redacted. */
  config: unknown;
  info: Record<string, unknown>;
  selected: number;
  skipped: number;
  /**
   * Every instance this folder holds a result for (earlier runs included), by id; with attempts,
   * the attempt that stands for it, with the calls and cost of all its attempts.
   */
  instances: Record<string, InstanceRecord>;
  /** With `run.attempts` above 1: every attempt's result, by `<id>/attempt-<k>`. */
  attempts?: Record<string, InstanceRecord>;
  /**
   * With `run.attempts` above 1: the attempts the attempt policy did not start (agreement, cost
   * limit), by `<id>/attempt-<k>`, with why; an attempt that later runs leaves it. Absent: none.
   */
  stopped_attempts?: Record<string, string>;
  /** Requests per model replica (`model.base_url` as a list) in this run; absent with one server. */
  replicas?: Record<string, ReplicaCounts>;
}

/** The lines run.json read back, as this writer keeps them (calls and cost 0 where an older line lacks them). */
function records(lines: Record<string, InstanceLine>): Record<string, InstanceRecord> {
  return Object.fromEntries(
    Object.entries(lines).map(([key, line]) => [
      key,
      { ...line, api_calls: line.api_calls ?? 0, cost: line.cost ?? 0 },
    ]),
  );
}

/**
 * What an earlier run.json of the folder holds: its instances and its info (unreadable: none; a
 * line that is not one is left out: the run rebuilds it from the instance's trajectory).
 */
function readPrevious(path: string): {
  instances: Record<string, InstanceRecord>;
  attempts?: Record<string, InstanceRecord>;
  stopped_attempts?: Record<string, string>;
  info: Record<string, unknown>;
} {
  const read = readRunJson(path);
  if (!read.ok) return { instances: {}, info: {} };
  const { run } = read;
  return {
    instances: records(run.instances ?? {}),
    ...(run.attempts ? { attempts: records(run.attempts) } : {}),
    ...(run.stopped_attempts ? { stopped_attempts: run.stopped_attempts } : {}),
    info: run.info,
  };
}

// What this writer writes, its reader reads: a line of `RunJson` is a line run-json.ts accepts.
type Readable<W, R> = [W] extends [R] ? true : false;
const linesReadable: Readable<InstanceRecord & Record<string, unknown>, InstanceLine> = true;
const runReadable: Readable<
  Omit<RunJson, "info">,
  Pick<RunJsonFields, Exclude<keyof RunJson, "info">>
> = true;
void linesReadable;
void runReadable;

/**
 * run.json and exit_statuses.yaml of a run folder, kept up to date through serialised atomic writes.
 * run.json has every secret value of `config` (and of the host's secret variables) and URL
 * credentials masked as `***` in every string value, wherever they occur (`config`, `info.argv`,
 * `info.config_sources`, ...); numbers and keys are left as they are, so the file always parses.
 * Its `config` is `scrubObjectSecrets(redactSecrets(config), { config })` (what `checkConfigDrift`
 * compares with).
 */
export class RunRecord {
  readonly data: RunJson;
  /** `info` of the run.json an earlier run left (empty when none). */
  readonly previousInfo: Record<string, unknown>;
  private readonly json: CoalescingWriter;
  private readonly yaml: CoalescingWriter;

  constructor(outputDir: string, config: Config, info: Record<string, unknown>) {
    const path = join(outputDir, "run.json");
    const previous = readPrevious(path);
    this.previousInfo = previous.info;
    this.data = {
      run_format: "patchloop-run-1",
      state: "running",
      started_at: new Date().toISOString(),
      ended_at: null,
      stopped_by: null,
      versions: versions(),
      config: redactSecrets(config),
      info: redactSecrets(info),
      selected: 0,
      skipped: 0,
      instances: previous.instances,
      ...(previous.attempts ? { attempts: previous.attempts } : {}),
      ...(previous.stopped_attempts && Object.keys(previous.stopped_attempts).length
        ? { stopped_attempts: previous.stopped_attempts }
        : {}),
    };
    const scrub = createScrubber(secretsOf({ config }));
    this.json = new CoalescingWriter(
      path,
      () => `${JSON.stringify(scrubStringValues(this.data, scrub), null, 2)}\n`,
    );
    this.yaml = new CoalescingWriter(join(outputDir, "exit_statuses.yaml"), () =>
      exitStatusesYaml(this.data.instances),
    );
  }

  /** Records an instance's result (from this run or, with only status and stats, from its trajectory). */
  set(id: string, record: InstanceRecord): void {
    this.data.instances[id] = record;
  }

  /** Every attempt's record (runs with `run.attempts` above 1), by `<id>/attempt-<k>`. */
  attemptRecords(): Record<string, InstanceRecord> {
    this.data.attempts ??= {};
    return this.data.attempts;
  }

  /** Records one attempt's result (it is no longer one the policy stopped). */
  setAttempt(key: string, record: InstanceRecord): void {
    this.attemptRecords()[key] = record;
    this.unstop(key);
  }

  /** Records that the attempt policy did not start an attempt, and why. */
  stopAttempt(key: string, reason: string): void {
    this.data.stopped_attempts = { ...this.data.stopped_attempts, [key]: reason };
  }

  /** An attempt starts: it is no longer one the policy stopped. */
  unstop(key: string): void {
    if (!this.data.stopped_attempts || !(key in this.data.stopped_attempts)) return;
    const { [key]: _, ...rest } = this.data.stopped_attempts;
    if (Object.keys(rest).length) this.data.stopped_attempts = rest;
    else delete this.data.stopped_attempts;
  }

  save(): Promise<void> {
    return Promise.all([this.json.write(), this.yaml.write()]).then(() => undefined);
  }

  finish(stoppedBy: StopReason): Promise<void> {
    this.data.ended_at = new Date().toISOString();
    this.data.stopped_by = stoppedBy;
    this.data.state =
      stoppedBy === null ? "finished" : stoppedBy === "interrupted" ? "interrupted" : "stopped";
    return this.save();
  }
}

/** `exit status -> [instance ids]` (contract), statuses in the contract's order, ids sorted. */
export function exitStatusesYaml(instances: Record<string, { exit_status: ExitStatus }>): string {
  const by: Partial<Record<ExitStatus, string[]>> = {};
  for (const status of EXIT_STATUSES) {
    const ids = Object.keys(instances)
      .filter((id) => instances[id].exit_status === status)
      .sort();
    if (ids.length > 0) by[status] = ids;
  }
  return Object.keys(by).length === 0 ? "{}\n" : toYaml(by);
}
