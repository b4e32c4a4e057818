import type { Plain } from "../config/merge.js";
import type { Config } from "../config/schema.js";
import { checkJob, forgedSignature, INSTANCE_ID, RUN_ID } from "./job-check.js";
import { JobConfigError, jobConfig } from "./machine-config.js";
import type { InstanceJob } from "./protocol.js";

/**
 * Whether this worker can run a job, before it starts it: the job's own checks (job-check.ts),
 * then what this worker has: the same patchloop version, the queue's secret, the secrets of the
 * job's config, a clone of its repository. A job that is wrong fails; a job this worker lacks
 * something for goes back to the queue for another worker, using no delivery.
 */

/** What a worker brings to a job. */
export interface WorkerFit {
  version: string;
  secret: Buffer | null;
  secretEnv: string | null;
  own: Config;
  explicit: Plain;
  /** Why this worker has no clone of `repo` for the job's environment, or null (it has, or needs none). */
  cloneProblem: (repo: string, config: Config) => string | null;
}

export type JobFit =
  | { ok: true; job: InstanceJob; config: Config; ignored: string[] }
  /** Nobody may run it: the job fails. */
  | { ok: false; by: "job"; problem: string }
  /** This worker cannot: back to the queue; `route` says where a refusal can be reported (when known). */
  | { ok: false; by: "worker"; problem: string; route?: { run: string; instanceId: string } };

/** The run and instance a job names, when both are of the forms a coordinator makes. */
function routeOf(data: unknown): { run: string; instanceId: string } | undefined {
  const d = data as { run?: unknown; row?: { instance_id?: unknown } } | null;
  const run = d?.run;
  const instanceId = d?.row?.instance_id;
  return typeof run === "string" &&
    RUN_ID.test(run) &&
    typeof instanceId === "string" &&
    INSTANCE_ID.test(instanceId)
    ? { run, instanceId }
    : undefined;
}

/** Whether worker `w` runs the job `data` (taken from the queue under `jobId`), and with which config. */
export function fitJob(data: unknown, jobId: string, w: WorkerFit): JobFit {
  // With a secret, nothing of the job is used (not even its version, which a refusal would
  // repeat, signed, to the coordinator) before its signature is checked.
  const forged = w.secret === null ? null : forgedSignature(data, w.secret, w.secretEnv);
  if (forged) return { ok: false, by: "job", problem: forged };
  const theirs = (data as { version?: unknown } | null)?.version;
  if (typeof theirs === "string" && theirs !== w.version)
    return {
      ok: false,
      by: "worker",
      problem:
        `this worker runs patchloop ${w.version} and the job comes from a coordinator of patchloop ` +
        `${theirs.slice(0, 40)}: run one version on the coordinator and every worker`,
      route: routeOf(data),
    };
  const checked = checkJob(data, jobId, w.secret, w.secretEnv);
  if (!checked.ok)
    return checked.by === "job"
      ? { ok: false, by: "job", problem: checked.problem }
      : { ok: false, by: "worker", problem: checked.problem, route: routeOf(data) };
  const job = checked.job;
  const route = { run: job.run, instanceId: job.row.instance_id };
  let fitted: { config: Config; ignored: string[] };
  try {
    fitted = jobConfig(job.config, { own: w.own, explicit: w.explicit });
  } catch (err) {
    if (!(err instanceof JobConfigError)) throw err;
    return err.by === "job"
      ? { ok: false, by: "job", problem: err.message }
      : { ok: false, by: "worker", problem: err.message, route };
  }
  const clone = w.cloneProblem(job.row.repo, fitted.config);
  if (clone) return { ok: false, by: "worker", problem: clone, route };
  return { ok: true, job, ...fitted };
}
