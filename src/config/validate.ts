import type { z } from "zod";
import { closest } from "./closest.js";
import { ConfigError } from "./errors.js";
import { isPlain, originOf, type Plain } from "./merge.js";
import { MOVED_KEYS } from "./mini-compat.js";
import { type Config, ConfigSchema } from "./schema.js";

type Issue = z.core.$ZodIssue;

function describe(value: unknown): string {
  if (value === undefined) return "nothing (the key is missing)";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${String(value)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const p of path)
    node = isPlain(node) || Array.isArray(node) ? (node as Plain)[p as string] : undefined;
  return node;
}

/** Valid keys of the schema object at `path`, or [] when it is not an object (e.g. a free-form record). */
function validKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: unknown = ConfigSchema;
  for (const p of path) {
    const shape = (schema as { shape?: Record<string, unknown> }).shape;
    schema = shape?.[p as string];
    if (!schema) return [];
  }
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function formatIssue(issue: Issue, data: Plain, origin: Map<string, string>): string[] {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const full = path ? `${path}.${key}` : key;
      const from = originOf(full, origin) ?? "config";
      const moved = MOVED_KEYS[full];
      if (moved) return `unknown key ${full} (from ${from}): it belongs at ${moved}`;
      const valid = validKeysAt(issue.path);
      const hint = closest(key, valid);
      const where = path ? `in ${path}` : "at the top level";
      return (
        `unknown key ${full} (from ${from})` +
        (hint ? `: did you mean ${path ? `${path}.` : ""}${hint}?` : ".") +
        ` Valid keys ${where}: ${valid.join(", ")}`
      );
    });
  }
  const from = originOf(path, origin);
  const received = describe(valueAt(data, issue.path));
  const suffix = from ? ` (from ${from})` : "";
  if (issue.code === "invalid_type") {
    return [`${path}${suffix}: expected ${issue.expected}, got ${received}`];
  }
  if (issue.code === "invalid_value") {
    return [
      `${path}${suffix}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${received}`,
    ];
  }
  return [`${path}${suffix}: ${issue.message}, got ${received}`];
}

/** Validates merged config data strictly; throws a ConfigError listing every problem. */
export function validateConfig(data: Plain, origin: Map<string, string>): Config {
  const result = ConfigSchema.safeParse(data);
  if (result.success) return result.data;
  const lines = result.error.issues.flatMap((issue) => formatIssue(issue, data, origin));
  throw new ConfigError(`invalid config:\n${lines.map((l) => `  - ${l}`).join("\n")}`);
}
