import { z } from "zod";
import type { LocalizationRecord } from "../localize/types.js";
import type { ChatMessage } from "../models/types.js";
import { issuesText } from "../util/schema-text.js";
import type { ModelStats } from "./model-stats.js";
import {
  EXIT_STATUSES,
  type ModelErrorInfo,
  type Trajectory,
  type TrajectoryInfo,
} from "./trajectory-types.js";

/**
 * The schema of a patchloop trajectory (`<id>.traj.json`, contract: README.md "Outputs"), as
 * trajectory.ts writes it: its summary (`info`) and its full form (`info` and `messages`). The
 * types stay in trajectory-types.ts; the checks at the end of this file fail to compile when the
 * two drift apart. Unknown keys are kept (a newer patchloop may add some).
 */

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const ModelStatsSchema = z.object({
  api_calls: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost: z.number(),
});

const ModelErrorSchema = z.object({
  kind: z.enum([
    "context_exceeded",
    "retries_exhausted",
    "fatal",
    "aborted",
  ] as const satisfies readonly ModelErrorInfo["kind"][]),
  status: z.number().optional(),
});

const infoShape = {
  exit_status: z.enum(EXIT_STATUSES).nullable(),
  exit_message: z.string().nullable(),
  submission: z.string(),
  submission_masked_lines: z.number().optional(),
  submission_dropped: z
    .array(z.object({ path: z.string(), reason: z.enum(["binary", "build artifact"]) }))
    .optional(),
  model_stats: ModelStatsSchema,
  config: z.unknown(),
  versions: z.record(z.string(), z.string()),
  timing: z.object({ started_at: z.string(), ended_at: z.string().nullable(), wall_seconds: z.number() }),
  instance_id: z.string().optional(),
  attempt_number: z.number().int().optional(),
  model_name: z.string().optional(),
  model_error: ModelErrorSchema.optional(),
  // the localization record is the agent's own bookkeeping, shown as it is: an object is enough here
  localization: z.custom<LocalizationRecord>(isRecord, "expected an object").optional(),
  worker: z.object({ id: z.string(), host: z.string(), pid: z.number() }).optional(),
  infra_retries: z.number().optional(),
  infrastructure: z.literal(true).optional(),
};

/** A trajectory's summary: `info`, as the writer leaves it (`exit_status` null while it runs). */
export const TrajectoryInfoSchema = z.looseObject(infoShape);

/** A recorded message: a role and content of the chat's kinds (the rest is the model client's bookkeeping). */
const MessageSchema = z.custom<ChatMessage>(
  (m) =>
    isRecord(m) &&
    ["system", "user", "assistant", "tool"].includes(m.role as string) &&
    (m.content === null || typeof m.content === "string" || Array.isArray(m.content)),
  "expected a chat message {role: system|user|assistant|tool, content: text, parts or null}",
);

const fullShape = {
  trajectory_format: z.literal("patchloop-1"),
  info: TrajectoryInfoSchema,
  messages: z.array(MessageSchema),
};

/** A patchloop trajectory in full. */
export const TrajectorySchema = z.looseObject(fullShape);

/** One line of a trajectory's journal (trajectory-journal.ts). */
export const JournalLineSchema = z.object({
  base: z.number().int().nonnegative(),
  messages: z.array(MessageSchema),
  info: TrajectoryInfoSchema,
});

const FORM = 'expected a patchloop trajectory ({trajectory_format: "patchloop-1", info, messages})';

/**
 * `doc` (the JSON of the file at `path`) checked as a patchloop trajectory in full: the trajectory,
 * or a problem naming the file, what is wrong and what was expected.
 */
export function parseTrajectory(
  doc: unknown,
  path: string,
): { ok: true; trajectory: Trajectory } | { ok: false; problem: string } {
  const format = trajectorySummary(doc, path);
  if (!format.ok) return format;
  const parsed = TrajectorySchema.safeParse(doc);
  if (!parsed.success) {
    return { ok: false, problem: `${path}: ${issuesText(parsed.error)}; ${FORM}` };
  }
  return { ok: true, trajectory: parsed.data };
}

/**
 * A trajectory's summary as the tolerant readers take it (resume, select, report: any trajectory an
 * earlier patchloop left, a running one included): each field when it has the written type, else
 * absent, never a failure.
 */
export const TrajectorySummarySchema = z.object({
  exit_status: z.string().nullable().optional().catch(undefined),
  exit_message: z.string().nullable().optional().catch(undefined),
  submission: z.string().optional().catch(undefined),
  model_stats: ModelStatsSchema.partial().optional().catch(undefined),
  model_error: ModelErrorSchema.optional().catch(undefined),
  model_name: z.string().optional().catch(undefined),
  timing: z.object({ wall_seconds: z.number() }).optional().catch(undefined),
  infrastructure: z.literal(true).optional().catch(undefined),
});
export type TrajectorySummary = z.infer<typeof TrajectorySummarySchema>;

/**
 * The summary of a trajectory's JSON `doc` (the file at `path`), tolerant (TrajectorySummarySchema);
 * a problem only when `doc` is no patchloop-1 trajectory.
 */
export function trajectorySummary(
  doc: unknown,
  path: string,
): { ok: true; summary: TrajectorySummary } | { ok: false; problem: string } {
  if (!isRecord(doc) || doc.trajectory_format !== "patchloop-1") {
    const format = isRecord(doc) ? doc.trajectory_format : undefined;
    return {
      ok: false,
      problem: `${path} is not a patchloop-1 trajectory (trajectory_format ${JSON.stringify(format) ?? "missing"}): written by another tool or an older patchloop`,
    };
  }
  return { ok: true, summary: infoSummary(doc) };
}

/** The summary of `doc.info`, whatever the format (tolerant: TrajectorySummarySchema); empty without an `info` object. */
export function infoSummary(doc: unknown): TrajectorySummary {
  return TrajectorySummarySchema.parse(isRecord(doc) && isRecord(doc.info) ? doc.info : {});
}

/**
 * A trajectory's text with `fields` set in its `info` (the others as they were): how a task marks
 * its infrastructure retries and a worker its name. Null when the text is no JSON object with an
 * `info` object (it is left as it is then).
 */
export function withInfoFields(text: string, fields: Partial<TrajectoryInfo>): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(doc) || !isRecord(doc.info)) return null;
  return `${JSON.stringify({ ...doc, info: { ...doc.info, ...fields } }, null, 2)}\n`;
}

// The types of trajectory-types.ts and the schema above describe the same file: each side must be
// assignable to the other (a field added to one and not the other fails to compile here).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const strictInfo = z.object(infoShape);
const strictFull = z.object({ ...fullShape, info: strictInfo });
const infoMatches: Same<z.infer<typeof strictInfo>, TrajectoryInfo> = true;
const statsMatch: Same<z.infer<typeof ModelStatsSchema>, ModelStats> = true;
const fullMatches: Same<z.infer<typeof strictFull>, Trajectory> = true;
void infoMatches;
void statsMatch;
void fullMatches;
