import type { ToolSpec } from "../../models/types.js";

/**
 * The exact form a format error shows the model (docs/protocols.md, "Format errors"): its own
 * command in the one block that runs, or a tool's arguments as the JSON object the tool takes.
 * A command too long to repeat is shown as a placeholder, so a format error stays short.
 */

/** Longest command (characters) a format error repeats back whole. */
export const MAX_SHOWN_COMMAND = 2000;

/** A fenced block tagged `tag` holding `command` (or `<command>` when there is none or it is too long). */
export function fencedForm(tag: string, command: string | null): string {
  const body =
    command === null || command.trim() === ""
      ? "<command>"
      : command.length > MAX_SHOWN_COMMAND
        ? `<your ${command.split("\n").length}-line command, unchanged>`
        : command.replace(/\n+$/, "");
  return `\`\`\`${tag}\n${body}\n\`\`\``;
}

/** A placeholder value of a JSON-schema property, by its type. */
function placeholder(key: string, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | null)?.type;
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return false;
  if (type === "array") return [];
  if (type === "object") return {};
  return `<${key}>`;
}

/** The arguments object a tool takes, its required keys with placeholders: `{"command": "<command>"}`. */
export function argumentsForm(spec: ToolSpec): string {
  const params = spec.parameters as { required?: unknown; properties?: Record<string, unknown> };
  const required = Array.isArray(params.required) ? params.required.filter((k) => typeof k === "string") : [];
  const example: Record<string, unknown> = {};
  for (const key of required) example[key] = placeholder(key, params.properties?.[key]);
  return JSON.stringify(example);
}
