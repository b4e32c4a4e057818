/** Small readers for JSON bodies of unknown shape. */

import { shownValue } from "../util/schema-text.js";

/** The value as a plain object, or null when it is not one. */
export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** A token count: the number, or 0 when absent or not a finite number. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** The value as JSON text, cut to `max` characters, for error messages. */
export function snippet(value: unknown, max = 300): string {
  return shownValue(value, max);
}
