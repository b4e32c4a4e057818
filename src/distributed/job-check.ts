import { z } from "zod";
import { unitKey } from "../batch/types.js";
import { isPlain } from "../config/merge.js";
import { DatasetError } from "../dataset/errors.js";
import { checkRows } from "../dataset/rows.js";
import { issueText, shown } from "./check-text.js";
import { instanceJobId } from "./keys.js";
import type { InstanceJob } from "./protocol.js";
import { signatureMatches } from "./signing.js";

/**
 * What a worker accepts as an instance job, before anything in it is used: its shape, its
 * signature (with a shared secret), and the names that become folders and keys on the worker
 * (instance id, repository, run id) in the forms SWE-bench and a coordinator use. Pure: no I/O.
 */

/** A GitHub owner: letters, digits and `-`. */
const OWNER = "[A-Za-z0-9][A-Za-z0-9-]{0,38}";
/** A GitHub repository name: letters, digits, `-`, `_` and `.`. */
const NAME = "[A-Za-z0-9._-]{1,100}";

/** `owner/name` (django/django). */
export const REPO_NAME = new RegExp(`^${OWNER}/${NAME}$`);
/**
 * `owner__name-NUMBER` (django__django-11099; also Multilingual, Live, rebench and Gym rows), or a
 * SWE-bench Pro id, `instance_owner__name-<40 hex>` with an optional `-v<40 hex>` or `-vnan`.
 */
export const INSTANCE_ID = new RegExp(
  `^(?:${OWNER}__${NAME}-[0-9]{1,12}|instance_${OWNER}__${NAME}-[0-9a-f]{40}(?:-v(?:[0-9a-f]{40}|nan))?)$`,
);
/** A run id as a coordinator makes it (letters, digits, `-` and `_`). */
export const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

const JobShape = z.strictObject({
  run: z.string(),
  row: z.record(z.string(), z.unknown()),
  attempt: z.number().int().min(1).max(100_000).optional(),
  config: z.unknown(),
  model_name: z.string(),
  deliveries: z.number().int().min(1),
  version: z.string(),
  sig: z.string().optional(),
});

/**
 * A job this worker may run, or why it refuses it: `by: "job"`, the job is wrong (malformed, not
 * signed as this worker needs, names that could be paths): no worker may run it, and it fails at
 * once; `by: "worker"`, this worker lacks what the job needs (another worker may have it).
 */
export type JobCheck = { ok: true; job: InstanceJob } | { ok: false; problem: string; by: "job" | "worker" };

/** Why `sig` does not let this worker run the job, or null. */
function signatureProblem(
  signed: Omit<InstanceJob, "sig">,
  sig: string | undefined,
  secret: Buffer | null,
  secretEnv: string | null,
): string | null {
  if (secret === null) return null;
  if (sig === undefined)
    return (
      `the job carries no signature, and this worker runs only signed jobs (run.queue.secret_env ${secretEnv}); ` +
      "its coordinator must set run.queue.secret_env to a variable holding the same secret"
    );
  if (!signatureMatches(secret, "job", signed, sig))
    return (
      `the job's signature does not match (run.queue.secret_env ${secretEnv}): it was not made by a coordinator ` +
      "with this worker's secret, or was changed since"
    );
  return null;
}

/**
 * Why a job is not signed with `secret`, or null when it is: read before anything else of the job
 * (its version, its shape), so that a job someone without the secret wrote gets no further, whatever
 * it holds. Signed is the whole message but its `sig`, as the coordinator made it.
 */
export function forgedSignature(data: unknown, secret: Buffer, secretEnv: string | null): string | null {
  if (!isPlain(data)) return "it is not an instance job (not an object)";
  const { sig, ...signed } = data;
  return signatureProblem(
    signed as Omit<InstanceJob, "sig">,
    typeof sig === "string" ? sig : undefined,
    secret,
    secretEnv,
  );
}

/**
 * Checks an instance job taken from the queue under `jobId`. With `secret` (the worker's
 * `run.queue.secret_env`) only a job its coordinator signed passes; without, a signed job is
 * refused too (its coordinator would drop this worker's unsigned result).
 */
export function checkJob(
  data: unknown,
  jobId: string,
  secret: Buffer | null,
  secretEnv: string | null,
): JobCheck {
  const refuse = (problem: string): JobCheck => ({ ok: false, problem, by: "job" });
  const shape = JobShape.safeParse(data);
  if (!shape.success)
    return refuse(
      `it is not an instance job of this patchloop (${issueText(shape.error)}); ` +
        "run the same patchloop version on the coordinator and the workers",
    );
  const { sig, ...signed } = shape.data;
  const unsigned = signatureProblem(signed as Omit<InstanceJob, "sig">, sig, secret, secretEnv);
  if (unsigned) return refuse(unsigned);
  let row: InstanceJob["row"];
  try {
    [row] = checkRows([signed.row], "the job", () => "its row");
  } catch (err) {
    if (err instanceof DatasetError) return refuse(err.message);
    throw err;
  }
  if (!RUN_ID.test(signed.run))
    return refuse(
      `the job's run id ${shown(signed.run)} is not one a coordinator makes (letters, digits, - and _)`,
    );
  if (!INSTANCE_ID.test(row.instance_id))
    return refuse(
      `the job's row.instance_id ${shown(row.instance_id)} is not a SWE-bench instance id ` +
        "(owner__name-NUMBER, e.g. django__django-11099, or a SWE-bench Pro id instance_owner__name-<commit>: letters, digits, - _ and . only); the worker makes folders from it",
    );
  if (!REPO_NAME.test(row.repo))
    return refuse(
      `the job's row.repo ${shown(row.repo)} is not a repository name ` +
        "(owner/name, e.g. django/django: letters, digits, - _ and . only); the worker makes folders from it",
    );
  const expected = instanceJobId(signed.run, unitKey(row.instance_id, signed.attempt));
  if (jobId !== expected)
    return refuse(`the job's id ${shown(jobId)} is not that of its run and instance (${expected})`);
  // the job may be fine: a worker with the secret can check it
  if (secret === null && sig !== undefined)
    return {
      ok: false,
      by: "worker",
      problem:
        "the job is signed (its coordinator sets run.queue.secret_env), and this worker has no secret to check it " +
        "with; start it with -c run.queue.secret_env=NAME, NAME holding the coordinator's secret",
    };
  return { ok: true, job: { ...signed, row, ...(sig === undefined ? {} : { sig }) } };
}
