import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { parseCsv } from "./csv.js";
import { DatasetError } from "./errors.js";
import { checkRows } from "./rows.js";
import { DATASET_EXTENSIONS } from "./subset-help.js";
import type { SwebenchInstance } from "./types.js";

/** The file extensions `readDatasetFile` understands (subset-help.ts owns the list). */
export { DATASET_EXTENSIONS };

/** Rows of a .jsonl text: one object a line, blank lines skipped; a bad line names its number. */
export function parseJsonl(text: string, source: string): SwebenchInstance[] {
  const raw: unknown[] = [];
  const lineOf: number[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    try {
      raw.push(JSON.parse(line));
    } catch (err) {
      throw new DatasetError(
        `${source}: line ${i + 1} is not valid JSON (${(err as Error).message}): ${JSON.stringify(line.slice(0, 80))}. ` +
          "A .jsonl file holds one JSON object per line; fix or remove that line.",
      );
    }
    lineOf.push(i + 1);
  }
  return checkRows(raw, source, (i) => `line ${lineOf[i]}`);
}

/** Rows of a .json text: a list of rows, or an object keyed by instance id. */
export function parseJsonDataset(text: string, source: string): SwebenchInstance[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new DatasetError(`${source}: not valid JSON (${(err as Error).message}). Expected a list of rows.`);
  }
  if (Array.isArray(data)) return checkRows(data, source);
  if (data !== null && typeof data === "object") {
    const entries = Object.entries(data as Record<string, unknown>);
    const raw = entries.map(([key, value]) => {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
      const row = value as Record<string, unknown>;
      if (row.instance_id !== undefined && row.instance_id !== key) {
        throw new DatasetError(
          `${source}: the row under key ${key} has instance_id ${JSON.stringify(row.instance_id)}.`,
        );
      }
      return { instance_id: key, ...row };
    });
    return checkRows(raw, source, (i) => `the row under key ${JSON.stringify(entries[i][0])}`);
  }
  throw new DatasetError(
    `${source}: expected a list of rows or an object keyed by instance id, got ${typeof data}.`,
  );
}

/** Rows of a parquet file's bytes (Hugging Face's export: one row group or many, any codec hyparquet reads). */
export async function parseParquet(bytes: Uint8Array, source: string): Promise<SwebenchInstance[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let raw: unknown[];
  try {
    raw = await parquetReadObjects({ file });
  } catch (err) {
    throw new DatasetError(`${source}: cannot be read as parquet (${(err as Error).message}).`);
  }
  return checkRows(raw, source);
}

/** Reads a local dataset file by its extension (.json, .jsonl, .parquet or .csv). */
export async function readDatasetFile(path: string): Promise<SwebenchInstance[]> {
  const ext = extname(path).toLowerCase();
  if (!DATASET_EXTENSIONS.includes(ext)) {
    throw new DatasetError(
      `${path}: unknown dataset file type ${JSON.stringify(ext)}; use .json, .jsonl, .parquet or .csv.`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new DatasetError(`cannot read dataset file ${path}: ${(err as Error).message}`);
  }
  if (ext === ".parquet") return parseParquet(bytes, path);
  const text = bytes.toString("utf8");
  if (ext === ".csv") {
    const { rows, lines } = parseCsv(text, path);
    return checkRows(rows, path, (i) => `line ${lines[i]}`);
  }
  return ext === ".jsonl" ? parseJsonl(text, path) : parseJsonDataset(text, path);
}
