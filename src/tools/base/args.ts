import type { ToolResult } from "./types.js";

/** Raised while checking a tool's arguments; the tool turns it into an error result, never a throw. */
export class ArgumentError extends Error {}

/** A failed tool call as the model sees it. */
export function errorResult(message: string): ToolResult {
  return { output: message, returncode: 1 };
}

/** A received value written for an error message, with its JSON type: `"5" (a string)`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `${clipJson(value)} (an array)`;
  const kind = typeof value;
  if (kind === "string") return `${clipJson(value)} (a string)`;
  if (kind === "number") return `${value} (a number)`;
  if (kind === "boolean") return `${value} (a boolean)`;
  if (kind === "object") return `${clipJson(value)} (an object)`;
  return String(value);
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Whether an argument was given: `null` counts as absent (some models send every field). */
export function isGiven(args: Record<string, unknown>, name: string): boolean {
  return args[name] !== undefined && args[name] !== null;
}

/** Rejects arguments that are not a JSON object, and names the tool does not know (naming the ones it does). */
export function rejectUnknown(
  args: unknown,
  known: readonly string[],
  tool: string,
): asserts args is Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new ArgumentError(`${tool} takes its arguments as a JSON object; got ${describeValue(args)}.`);
  }
  const record = args as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !known.includes(k) && isGiven(record, k));
  if (unknown.length === 0) return;
  const list = unknown.map((k) => `"${k}"`).join(", ");
  throw new ArgumentError(
    `${tool} does not know the argument${unknown.length > 1 ? "s" : ""} ${list}. Its arguments are: ${known.join(", ")}.`,
  );
}

/** A required string argument. */
export function requireString(args: Record<string, unknown>, name: string, what: string): string {
  const value = args[name];
  if (!isGiven(args, name)) throw new ArgumentError(`Missing argument ${name}: ${what}.`);
  if (typeof value !== "string") {
    throw new ArgumentError(`${name} must be a string (${what}); got ${describeValue(value)}.`);
  }
  return value;
}

/** A whole number, also accepted when written as a string of digits (`"12"`); undefined when not one. */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return undefined;
}
