import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { asRecord, asString, type JsonRecord } from "./json-read.js";

/** What the run's own bookkeeping files say (each part empty when its file is absent). */
export interface RunFiles {
  /** preds.json: instance id → model_patch. */
  patches: Map<string, string>;
  /** exit_statuses.yaml: instance id → exit status. */
  exitStatuses: Map<string, string>;
  /** Scalar top-level fields of run.json, as label → text. */
  facts: Record<string, string>;
  problems: string[];
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function readPreds(text: string, files: RunFiles): void {
  const doc = asRecord(JSON.parse(text));
  if (!doc)
    throw new Error("expected an object {instance_id: {instance_id, model_name_or_path, model_patch}}");
  for (const [id, entry] of Object.entries(doc)) {
    const patch = asString(asRecord(entry)?.model_patch);
    files.patches.set(id, patch ?? "");
  }
}

function readExitStatuses(text: string, files: RunFiles): void {
  const doc = asRecord(parseYaml(text));
  if (!doc) throw new Error("expected a mapping exit status -> [instance ids]");
  for (const [status, ids] of Object.entries(doc)) {
    if (!Array.isArray(ids)) continue;
    for (const id of ids) if (typeof id === "string") files.exitStatuses.set(id, status);
  }
}

const MAX_FACT_CHARS = 200;

function readRunJson(text: string, files: RunFiles): void {
  const doc: JsonRecord | null = asRecord(JSON.parse(text));
  if (!doc) throw new Error("expected a JSON object");
  for (const [key, value] of Object.entries(doc)) {
    if (Object.keys(files.facts).length >= 16) break;
    const isScalar = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
    if (isScalar && String(value).length <= MAX_FACT_CHARS) files.facts[key] = String(value);
  }
}

/** Reads preds.json, exit_statuses.yaml and run.json from a run folder; a broken file is a problem line. */
export async function readRunFiles(root: string): Promise<RunFiles> {
  const files: RunFiles = { patches: new Map(), exitStatuses: new Map(), facts: {}, problems: [] };
  const readers: Array<[string, (text: string, files: RunFiles) => void]> = [
    ["preds.json", readPreds],
    ["exit_statuses.yaml", readExitStatuses],
    ["run.json", readRunJson],
  ];
  for (const [name, read] of readers) {
    try {
      const text = await readOptional(join(root, name));
      if (text !== null) read(text, files);
    } catch (err) {
      files.problems.push(`${name}: ${(err as Error).message}`);
    }
  }
  return files;
}
