import type { z } from "zod";
import { closest } from "./closest.js";
import { ConfigError } from "./errors.js";
import { isPlain, originOf, type Plain } from "./merge.js";
import { MOVED_KEYS } from "./mini-compat.js";
import { KNOWN_REQUEST_FIELDS } from "./request-fields.js";
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

/** The object shape of a schema, through nullable, optional, default and pipe wrappers; undefined when none. */
function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let s = schema as
    | { shape?: Record<string, unknown>; def?: { innerType?: unknown; in?: unknown } }
    | undefined;
  for (let i = 0; s && i < 8; i++) {
    if (s.shape) return s.shape;
    s = (s.def?.innerType ?? s.def?.in) as typeof s;
  }
  return undefined;
}

/** Valid keys of the schema object at `path`, or [] when it is not an object (e.g. a free-form record). */
function validKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: unknown = ConfigSchema;
  for (const p of path) {
    schema = shapeOf(schema)?.[p as string];
    if (!schema) return [];
  }
  const shape = shapeOf(schema);
  return shape ? Object.keys(shape) : [];
}

/** Every dotted path of the schema's objects that has a key named `key` (e.g. `agent` for step_limit). */
function placesOf(key: string, schema: unknown = ConfigSchema, prefix = "", depth = 0): string[] {
  const shape = shapeOf(schema);
  if (!shape || depth > 4) return [];
  const here = key in shape ? [prefix] : [];
  return [
    ...here,
    ...Object.entries(shape).flatMap(([k, v]) => placesOf(key, v, prefix ? `${prefix}.${k}` : k, depth + 1)),
  ];
}

/**
 * A did-you-mean for an unknown key that is no misspelling of a key beside it: a request field
 * (`model.temperature` belongs in `model.model_kwargs`), or a key the config has elsewhere.
 */
function elsewhereHint(path: string, key: string): string | undefined {
  if (path === "model" && KNOWN_REQUEST_FIELDS.includes(key))
    return `model.model_kwargs.${key}? Fields sent with every request to the model server go under model.model_kwargs.`;
  const places = placesOf(key).filter((p) => p !== path);
  if (places.length === 0 || places.length > 2) return undefined;
  return `${places.map((p) => (p ? `${p}.${key}` : key)).join(" or ")}?`;
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
      const elsewhere = hint ? undefined : elsewhereHint(path, key);
      return (
        `unknown key ${full} (from ${from})` +
        (hint
          ? `: did you mean ${path ? `${path}.` : ""}${hint}?`
          : elsewhere
            ? `: did you mean ${elsewhere}`
            : ".") +
        ` Valid keys ${where}: ${valid.join(", ")}`
      );
    });
  }
  const from = originOf(path, origin);
  const received = describe(valueAt(data, issue.path));
  const suffix = from ? ` (from ${from})` : "";
  if (issue.code === "invalid_type") {
    // a mapping of a shape that was given something else: say what it holds
    const keys = issue.expected === "object" ? validKeysAt(issue.path) : [];
    const holds = keys.length > 0 ? `. Valid keys in ${path}: ${keys.join(", ")}` : "";
    return [`${path}${suffix}: expected ${issue.expected}, got ${received}${holds}`];
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
