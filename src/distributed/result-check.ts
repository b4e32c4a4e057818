import { z } from "zod";
import { EXIT_STATUSES } from "../agent/trajectory-types.js";
import type { ModelErrorKind } from "../models/types.js";
import { issueText, shown } from "./check-text.js";
import { INSTANCE_ID } from "./job-check.js";
import type { OutcomeReport, Progress, Refusal, WorkerMessage } from "./protocol.js";
import { signatureMatches } from "./signing.js";

/**
 * What a coordinator accepts from the queue, before anything in it is used: the shape of a
 * worker's message (zod, every field a worker sends and nothing else: a result, or a refusal), its
 * run, its signature (with a shared secret), and a result's delivery among those workers logged on
 * the instance's job; and the shape of a progress report (a start notice, or the agent's own
 * `model_call` and `model_retry` events). Pure: no I/O.
 */

const Count = z.number().int().min(0);
const Amount = z.number().min(0);
/** Text a log line shows as it is: no control characters. */
const Label = z
  .string()
  .regex(/^[^\u0000-\u001f\u007f]{1,300}$/, "1 to 300 characters, no control characters");

/** Every kind of model failure (a Record, so that a new kind cannot be left out here). */
const MODEL_ERROR_KINDS: Record<ModelErrorKind, true> = {
  context_exceeded: true,
  retries_exhausted: true,
  fatal: true,
  aborted: true,
};

const WorkerSchema = z.strictObject({ id: Label, host: Label, pid: z.number().int().positive() });

const OutcomeSchema = z.strictObject({
  instance_id: z.string().regex(INSTANCE_ID, "a SWE-bench instance id (owner__name-NUMBER)"),
  attempt_number: z.number().int().min(1).max(100_000).optional(),
  exit_status: z.enum(EXIT_STATUSES),
  exit_message: z.string(),
  patch_bytes: Count,
  api_calls: Count,
  cost: Amount,
  prompt_tokens: Count,
  completion_tokens: Count,
  started_at: z.iso.datetime(),
  ended_at: z.iso.datetime(),
  environment_seconds: Amount,
  agent_seconds: Amount,
  seconds: Amount,
  patch: z.string(),
  masked_lines: Count.optional(),
  patch_differs: z.literal(true).optional(),
  infra_retries: Count.optional(),
  infrastructure: z.literal(true).optional(),
  worker: Label,
  delivery: z.string().regex(/^[A-Za-z0-9_.%-]{1,400}$/, "a delivery id (<job id>.<hex>)"),
  model_error: z
    .strictObject({
      kind: z.enum(Object.keys(MODEL_ERROR_KINDS) as [ModelErrorKind, ...ModelErrorKind[]]),
      status: z.number().int().optional(),
    })
    .optional(),
});

const ReportSchema = z.strictObject({
  outcome: OutcomeSchema,
  files: z.record(z.string(), z.string()),
  worker: WorkerSchema,
  replicas: z.record(z.string(), z.strictObject({ requests: Count, failures: Count })).optional(),
});

const ResultJobSchema = z.strictObject({ run: z.string(), result: ReportSchema, sig: z.string().optional() });

const RefusalJobSchema = z.strictObject({
  run: z.string(),
  refusal: z.strictObject({
    instance_id: OutcomeSchema.shape.instance_id,
    job: z.string().max(600),
    worker: WorkerSchema,
    reason: z.string().max(4000),
  }),
  sig: z.string().optional(),
});

/** One call's `Usage` (models/types.ts) as a worker's `model_call` progress carries it. */
const UsageSchema = z.strictObject({
  prompt_tokens: Count,
  completion_tokens: Count,
  reasoning_tokens: Count.optional(),
  reasoning_tokens_estimated: z.boolean().optional(),
  cached_tokens: Count.optional(),
});

const ProgressSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("start"), worker: WorkerSchema, delivery: z.string() }),
  z.strictObject({
    type: z.literal("model_call"),
    step: Count,
    usage: UsageSchema,
    cost: Amount,
    tries: Count,
  }),
  z.strictObject({
    type: z.literal("model_retry"),
    step: Count,
    tryNumber: Count,
    maxTries: Count,
    waitSeconds: Amount,
    reason: z.string().max(2000),
  }),
]);

/** A message the coordinator may go on with, or why it is dropped. */
export type ResultCheck = { ok: true; message: WorkerMessage } | { ok: false; problem: string };

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * Checks what a run's results queue gave: a message of this patchloop (a result, or a refusal:
 * whichever field it has), of `run`, and with `secret` (the coordinator's `run.queue.secret_env`)
 * signed by a worker that has it.
 */
export function readResult(
  data: unknown,
  run: string,
  secret: Buffer | null,
  secretEnv: string | null,
): ResultCheck {
  const refusal = isMap(data) && "refusal" in data && !("result" in data);
  const parsed = (refusal ? RefusalJobSchema : ResultJobSchema).safeParse(data);
  if (!parsed.success)
    return { ok: false, problem: `it is not a result of this patchloop (${issueText(parsed.error)})` };
  const job = parsed.data as { run: string; sig?: string } & (
    | { result: OutcomeReport }
    | { refusal: Refusal }
  );
  if (job.run !== run) return { ok: false, problem: `it belongs to run ${shown(job.run)}, not ${run}` };
  const message: WorkerMessage =
    "result" in job
      ? { kind: "outcome", run: job.run, report: job.result }
      : { kind: "refused", run: job.run, refusal: job.refusal };
  if (secret === null) return { ok: true, message };
  if (job.sig === undefined)
    return {
      ok: false,
      problem: `it carries no signature, and this run accepts only signed results (run.queue.secret_env ${secretEnv})`,
    };
  const matches =
    "result" in job
      ? signatureMatches(secret, "result", { run: job.run, result: job.result }, job.sig)
      : signatureMatches(secret, "refusal", { run: job.run, refusal: job.refusal }, job.sig);
  if (!matches)
    return {
      ok: false,
      problem:
        `its signature does not match (run.queue.secret_env ${secretEnv}): it was not made by a worker with ` +
        "this run's secret, or was changed since",
    };
  return { ok: true, message };
}

/** Why a result's delivery is not one of its job's (`started`: the deliveries its log names), or null. */
export function deliveryProblem(delivery: string, jobId: string, started: readonly string[]): string | null {
  return delivery.startsWith(`${jobId}.`) && started.includes(delivery)
    ? null
    : "no worker started that delivery of its job";
}

/** A worker's progress report, or null when `data` is not one (it is then ignored). */
export function readProgress(data: unknown): Progress | null {
  const parsed = ProgressSchema.safeParse(data);
  return parsed.success ? parsed.data : null;
}
