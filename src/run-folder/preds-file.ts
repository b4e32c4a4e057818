import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { TaskOutcome } from "../task/outcome.js";
import { CoalescingWriter } from "../util/coalescing-writer.js";
import { issuesText, shownValue } from "../util/schema-text.js";

/** preds.json exists but cannot be read as predictions: it is never overwritten then. */
export class PredsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PredsFileError";
  }
}

/**
 * One entry of preds.json (contract: README.md "Outputs"), as patchloop writes it; eval reads it as
 * a `Prediction`. Unknown keys are left out of the parsed entry (a rewrite keeps them: `PredsJson.raw`).
 */
export const PredEntrySchema = z.object({
  instance_id: z.string(),
  model_name_or_path: z.string(),
  model_patch: z.string(),
});

/** One entry of preds.json; a type, not an interface, so that it fits where any object of prediction fields does. */
export type PredEntry = z.infer<typeof PredEntrySchema>;

/** What the tolerant readers need of an entry: its patch. */
const PredPatchSchema = z.object({ model_patch: z.string() });

/** What preds.json holds as read back (`readPredsJson`). */
export interface PredsJson {
  /** The entries that are predictions as patchloop writes them, by instance id. */
  entries: Record<string, PredEntry>;
  /**
   * The patch of every entry that has one (a `model_patch` string), valid prediction or not: what the
   * tolerant readers (report, inspect) show, since older folders and hand-made files may lack
   * `model_name_or_path`.
   */
  patches: Record<string, string>;
  /** Every entry as the file holds it, valid or not, in the file's order (what a rewrite keeps). */
  raw: Record<string, unknown>;
  /** One line per entry that is not a prediction: the file, the entry, what is wrong and what to do. */
  problems: string[];
}

const ENTRY_FORM = "{instance_id, model_name_or_path, model_patch} strings as patchloop writes them";

/** Why preds.json's text is not preds.json at all: not JSON (with JSON.parse's message), or not an object. */
export type PredsTextError = { error: "not-json"; message: string } | { error: "not-object"; got: string };

/**
 * preds.json's text checked against its schema (`path` names it in problems): an entry that is not
 * a prediction (or whose instance_id is not its key) is left out of `entries` with a problem; a
 * text that is not JSON, or not an object keyed by instance id, is a `PredsTextError`.
 */
export function parsePredsJson(text: string, path: string): PredsJson | PredsTextError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: "not-json", message: (err as Error).message };
  }
  const top = z.record(z.string(), z.unknown()).safeParse(parsed);
  if (!top.success) {
    return {
      error: "not-object",
      got: Array.isArray(parsed) ? "a list" : parsed === null ? "null" : typeof parsed,
    };
  }
  const out: PredsJson = { entries: {}, patches: {}, raw: top.data, problems: [] };
  for (const [id, value] of Object.entries(top.data)) {
    const patch = PredPatchSchema.safeParse(value);
    if (patch.success) out.patches[id] = patch.data.model_patch;
    const entry = PredEntrySchema.safeParse(value);
    if (!entry.success) {
      out.problems.push(
        `${path}: the entry ${JSON.stringify(id)} is not a prediction (${issuesText(entry.error)}; received ${shownValue(value)}); expected ${ENTRY_FORM}: repair or remove it`,
      );
    } else if (entry.data.instance_id !== id) {
      out.problems.push(
        `${path}: the entry ${JSON.stringify(id)} has the instance_id ${JSON.stringify(entry.data.instance_id)}; an entry's key is its instance_id: repair or remove it`,
      );
    } else out.entries[id] = entry.data;
  }
  return out;
}

/**
 * Reads preds.json at `path` (see `parsePredsJson`); a file that cannot be read, is not JSON or is
 * not an object keyed by instance id is a `PredsFileError` (PredsFile never overwrites it then).
 */
export function readPredsJson(path: string): PredsJson {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new PredsFileError(`cannot read ${path} (${(err as Error).message}); check the run folder`);
  }
  const read = parsePredsJson(text, path);
  if ("entries" in read) return read;
  if (read.error === "not-json") {
    throw new PredsFileError(
      `${path} exists but is not valid JSON (${read.message}). patchloop will not overwrite it: ` +
        "move it away or repair it, then run again.",
    );
  }
  throw new PredsFileError(
    `${path} exists but is not an object keyed by instance id (got ${read.got}). Move it away, then run again.`,
  );
}

/** The preds.json entry of a task's outcome. */
export function predOf(outcome: Pick<TaskOutcome, "instance_id" | "patch">, modelName: string): PredEntry {
  return { instance_id: outcome.instance_id, model_name_or_path: modelName, model_patch: outcome.patch };
}

/**
 * `DIR/preds.json`: `{instance_id: {instance_id, model_name_or_path, model_patch}}`, loaded once
 * and rewritten atomically through one serialised writer. Entries of instances this run does not
 * touch are kept as they were. The only writer of preds.json: the batch's run folder, `patchloop
 * run` and `patchloop demo` all write through it.
 */
export class PredsFile {
  readonly path: string;
  /** The entries of the existing preds.json that are not predictions (see `parsePredsJson`); kept as they were. */
  readonly problems: readonly string[];
  /** Every entry, as written: the valid ones, and the others as the file held them. */
  private readonly all: Record<string, unknown>;
  private readonly entries: Record<string, PredEntry>;
  private readonly writer: CoalescingWriter;

  /** Throws `PredsFileError` when an existing preds.json cannot be read as a JSON object (it is never overwritten then). */
  constructor(outputDir: string) {
    this.path = join(outputDir, "preds.json");
    const read = existsSync(this.path)
      ? readPredsJson(this.path)
      : { entries: {}, patches: {}, raw: {}, problems: [] };
    this.all = read.raw;
    this.entries = read.entries;
    this.problems = read.problems;
    this.writer = new CoalescingWriter(this.path, () => `${JSON.stringify(this.all, null, 2)}\n`);
  }

  /** Whether preds.json holds an entry for `id` (a valid prediction or not). */
  has(id: string): boolean {
    return Object.hasOwn(this.all, id);
  }

  /** The prediction preds.json holds for `id`; undefined when none, or when its entry is not a prediction. */
  get(id: string): PredEntry | undefined {
    return Object.hasOwn(this.entries, id) ? this.entries[id] : undefined;
  }

  /** Records the entry and resolves once preds.json on disk holds it. */
  set(entry: PredEntry): Promise<void> {
    this.entries[entry.instance_id] = entry;
    this.all[entry.instance_id] = entry;
    return this.writer.write();
  }

  /** Writes the current state (e.g. to create an empty `{}` at the start of a run). */
  flush(): Promise<void> {
    return this.writer.write();
  }
}
