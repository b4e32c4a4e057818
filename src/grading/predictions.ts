import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import type { SwebenchInstance } from "../dataset/types.js";
import type { PredEntry } from "../run-folder/preds-file.js";

/**
 * One prediction, as the harness reads it: preds.json's entry (PredEntry, what patchloop writes)
 * as other tools may write it too. Extra keys are kept but ignored.
 */
export interface Prediction extends Omit<PredEntry, "model_patch"> {
  /** A unified diff; "" or null means "no patch" (counted as empty, not run). */
  model_patch: string | null;
  [key: string]: unknown;
}

/** Predictions that cannot be used: the message says what and what to do (exit status 2). */
export class PredictionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PredictionsError";
  }
}

/** An object of any keys: what each prediction, and a preds.json-like file, must be. */
const ObjectSchema = z.record(z.string(), z.unknown());

function checkOne(item: unknown, where: string, source: string): Prediction {
  const parsed = ObjectSchema.safeParse(item);
  if (!parsed.success) {
    throw new PredictionsError(`${source}: ${where} is not an object with instance_id and model_patch.`);
  }
  const p = parsed.data;
  if (typeof p.instance_id !== "string" || p.instance_id === "") {
    throw new PredictionsError(
      `${source}: ${where} has no instance_id (got ${JSON.stringify(p.instance_id) ?? "nothing"}).`,
    );
  }
  const name = p.model_name_or_path;
  return {
    ...p,
    instance_id: p.instance_id,
    model_name_or_path: typeof name === "string" && name !== "" ? name : "None",
    // Kept as given: a non-string patch becomes a per-instance error at evaluation, not a crash here.
    // SWE-bench Pro's patch files name it `patch` (its evaluator reads model_patch first, then patch).
    model_patch: (p.model_patch ?? p.patch ?? null) as string | null,
  };
}

/**
 * Parses predictions in every form the harness accepts: `.json` holding a list of predictions
 * or an object keyed by instance id (SWE-agent / patchloop preds.json: only the values are
 * used; a value without `instance_id` takes its key), or `.jsonl` (one object a line). Any other
 * extension, malformed JSON (with the line for .jsonl), a missing instance_id or a duplicate id
 * is a `PredictionsError`.
 */
export function parsePredictions(text: string, source: string): Prediction[] {
  const ext = extname(source).toLowerCase();
  let out: Prediction[];
  if (ext === ".jsonl") {
    out = [];
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (line === "") continue;
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch (err) {
        throw new PredictionsError(`${source}: line ${i + 1} is not valid JSON (${(err as Error).message}).`);
      }
      out.push(checkOne(item, `line ${i + 1}`, source));
    }
  } else if (ext === ".json") {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new PredictionsError(`${source}: not valid JSON (${(err as Error).message}).`);
    }
    const keyed = ObjectSchema.safeParse(data);
    if (Array.isArray(data)) out = data.map((d, i) => checkOne(d, `entry ${i + 1}`, source));
    else if (keyed.success) {
      out = Object.entries(keyed.data).map(([key, value]) => {
        const withId =
          value && typeof value === "object" && !("instance_id" in value)
            ? { instance_id: key, ...value }
            : value;
        return checkOne(withId, `the entry under key ${JSON.stringify(key)}`, source);
      });
    } else throw new PredictionsError(`${source}: expected a list or an object keyed by instance id.`);
  } else {
    throw new PredictionsError(
      `${source}: predictions must be a .json or .jsonl file (got ${JSON.stringify(ext || source)}).`,
    );
  }
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const p of out) {
    if (seen.has(p.instance_id)) dup.add(p.instance_id);
    seen.add(p.instance_id);
  }
  if (dup.size > 0) {
    throw new PredictionsError(
      `${source}: duplicate predictions for ${[...dup].join(", ")}. Keep one prediction per instance id.`,
    );
  }
  return out;
}

/** Reads a predictions file (see `parsePredictions`). */
export async function loadPredictions(path: string): Promise<Prediction[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new PredictionsError(`cannot read predictions file ${path}: ${(err as Error).message}`);
  }
  return parsePredictions(text, path);
}

/** The harness's `gold` predictions: each row's own `patch`. */
export function goldPredictions(rows: SwebenchInstance[]): Prediction[] {
  return rows.map((r) => ({ instance_id: r.instance_id, model_name_or_path: "gold", model_patch: r.patch }));
}

/** Ids of predictions that are not in the dataset: the harness refuses to run them, and so do we. */
export function checkPredictionIds(predictions: Prediction[], rows: SwebenchInstance[]): void {
  const known = new Set(rows.map((r) => r.instance_id));
  const unknown = predictions.filter((p) => !known.has(p.instance_id)).map((p) => p.instance_id);
  if (unknown.length > 0) {
    throw new PredictionsError(
      `${unknown.length} prediction${unknown.length > 1 ? "s name" : " names"} an instance not in the dataset: ` +
        `${unknown.join(", ")}. Check --dataset and --split, or remove those predictions.`,
    );
  }
}
