import { DatasetError } from "./errors.js";
import { type DatasetLayout, layoutOf, normalizeRow } from "./kinds.js";
import type { SwebenchInstance } from "./types.js";

const REQUIRED = ["instance_id", "repo", "base_commit"] as const;
const TEXT_FIELDS = [
  "patch",
  "test_patch",
  "problem_statement",
  "hints_text",
  "created_at",
  "version",
  "environment_setup_commit",
  "test_cmd",
  "log_parser",
  "image_name",
  "docker_image",
] as const;

function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Checks rows in the Hugging Face SWE-bench schema and returns them typed. `instance_id`, `repo`
 * and `base_commit` must be non-empty strings; the other text fields, where present, strings
 * (or null, read as absent); `FAIL_TO_PASS` / `PASS_TO_PASS` are kept as given and decoded
 * later by `parseTestList`. Each row is then checked against its layout's schema (`layout`, or
 * told by its columns: SWE-bench, Pro, Live, SWE-rebench) and normalized (dataset/kinds.ts).
 * Duplicate ids are an error listing them. `source` names the file or URL in every message;
 * `where(i)` names row i (a line number for .jsonl).
 */
export function checkRows(
  raw: unknown[],
  source: string,
  where: (index: number) => string = (i) => `row ${i + 1}`,
  layout?: DatasetLayout,
): SwebenchInstance[] {
  const seen = new Map<string, number>();
  const duplicates = new Set<string>();
  const rows = raw.map((item, i) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      throw new DatasetError(
        `${source}: ${where(i)} is not an object (got ${Array.isArray(item) ? "a list" : typeof item}).`,
      );
    }
    const row: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item)) {
      if (v !== null && v !== undefined) row[k] = plain(v);
    }
    for (const key of REQUIRED) {
      if (typeof row[key] !== "string" || row[key] === "") {
        throw new DatasetError(
          `${source}: ${where(i)} has no ${key} (a non-empty string is required; got ${JSON.stringify(row[key]) ?? "nothing"}). ` +
            "Rows must follow the Hugging Face SWE-bench schema.",
        );
      }
    }
    for (const key of TEXT_FIELDS) {
      if (key in row && typeof row[key] !== "string") {
        throw new DatasetError(
          `${source}: ${where(i)} (${row.instance_id}): ${key} must be a string, got ${typeof row[key]} ${JSON.stringify(row[key])}.`,
        );
      }
    }
    const id = row.instance_id as string;
    if (seen.has(id)) duplicates.add(id);
    seen.set(id, i);
    return normalizeRow(row, layout ?? layoutOf(row), `${source}: ${where(i)}`);
  });
  if (duplicates.size > 0) {
    throw new DatasetError(
      `${source}: duplicate instance ids: ${[...duplicates].join(", ")}. Each id must appear once.`,
    );
  }
  return rows;
}
