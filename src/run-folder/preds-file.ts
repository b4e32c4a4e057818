import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskOutcome } from "../task/outcome.js";
import { CoalescingWriter } from "../util/coalescing-writer.js";

/** preds.json exists but cannot be read as predictions: it is never overwritten then. */
export class PredsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PredsFileError";
  }
}

/**
 * One entry of preds.json (contract: README.md "Outputs"), as patchloop writes it; eval reads it as
 * a `Prediction`. A type, not an interface, so that it fits where any object of prediction fields does.
 */
export type PredEntry = {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
};

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
  private readonly entries: Record<string, PredEntry>;
  private readonly writer: CoalescingWriter;

  /** Throws `PredsFileError` when an existing preds.json cannot be read as a JSON object (it is never overwritten then). */
  constructor(outputDir: string) {
    this.path = join(outputDir, "preds.json");
    this.entries = existsSync(this.path) ? readExisting(this.path) : {};
    this.writer = new CoalescingWriter(this.path, () => `${JSON.stringify(this.entries, null, 2)}\n`);
  }

  has(id: string): boolean {
    return Object.hasOwn(this.entries, id);
  }

  get(id: string): PredEntry | undefined {
    return this.entries[id];
  }

  /** Records the entry and resolves once preds.json on disk holds it. */
  set(entry: PredEntry): Promise<void> {
    this.entries[entry.instance_id] = entry;
    return this.writer.write();
  }

  /** Writes the current state (e.g. to create an empty `{}` at the start of a run). */
  flush(): Promise<void> {
    return this.writer.write();
  }
}

function readExisting(path: string): Record<string, PredEntry> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new PredsFileError(
      `${path} exists but is not valid JSON (${(err as Error).message}). patchloop will not overwrite it: ` +
        "move it away or repair it, then run again.",
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new PredsFileError(
      `${path} exists but is not an object keyed by instance id (got ${Array.isArray(parsed) ? "a list" : typeof parsed}). ` +
        "Move it away, then run again.",
    );
  }
  return parsed as Record<string, PredEntry>;
}
