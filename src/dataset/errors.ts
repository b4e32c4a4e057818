import type { SwebenchInstance } from "./types.js";

/** A dataset that cannot be used as given: the message says what, where, and what to do. */
export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatasetError";
  }
}

function excerpt(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const shown = text === undefined ? String(value) : text;
  return shown.length > 120 ? `${JSON.stringify(shown.slice(0, 120))}...` : JSON.stringify(shown);
}

/**
 * Reads `FAIL_TO_PASS` / `PASS_TO_PASS` of a row: a JSON-encoded list of strings as in the
 * Hugging Face dataset (an already decoded list is accepted too). Anything else is a
 * `DatasetError` naming the instance, the field and what it held.
 */
export function parseTestList(
  row: Pick<SwebenchInstance, "instance_id"> & Record<string, unknown>,
  field: string,
): string[] {
  const raw = row[field];
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new DatasetError(
        `instance ${row.instance_id}: ${field} is not valid JSON (${(err as Error).message}); got ${excerpt(raw)}. ` +
          `Expected a JSON-encoded list of test names, e.g. "[\\"test_a\\", \\"test_b\\"]".`,
      );
    }
  }
  if (!Array.isArray(value) || value.some((t) => typeof t !== "string")) {
    throw new DatasetError(
      `instance ${row.instance_id}: ${field} must be a list of test names (strings); got ${excerpt(raw)}.`,
    );
  }
  return value as string[];
}
