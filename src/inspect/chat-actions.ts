import { asRecord, asString, type JsonRecord } from "./json-read.js";
import type { ActionView } from "./view/view-model.js";

/** Renders tool arguments as `key: value` lines; a multi-line value goes on the lines after its key. */
export function formatArgs(args: JsonRecord): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    lines.push(text.includes("\n") ? `${key}:\n${text}` : `${key}: ${text}`);
  }
  return lines.join("\n");
}

function toolAction(tool: string | null, args: unknown): ActionView {
  const rec = asRecord(args);
  if (rec) {
    const command = asString(rec.command);
    const keys = Object.keys(rec);
    if (command !== null && keys.length === 1) return { tool, text: command };
    return { tool, text: formatArgs(rec) };
  }
  return { tool, text: typeof args === "string" ? args : JSON.stringify(args ?? null) };
}

/**
 * Actions recorded in a message's `extra.actions`: `{command}` (a shell command) or `{tool, args}`
 * (patchloop's tool calls). Entries of any other shape are shown as JSON rather than dropped.
 */
export function actionsFromExtra(actions: unknown): ActionView[] | null {
  if (!Array.isArray(actions)) return null;
  return actions.map((entry) => {
    const rec = asRecord(entry);
    if (!rec) return { tool: null, text: JSON.stringify(entry) };
    if (typeof rec.tool === "string") return toolAction(rec.tool, rec.args ?? rec.arguments ?? {});
    if (typeof rec.command === "string") return { tool: null, text: rec.command };
    return { tool: null, text: JSON.stringify(rec) };
  });
}

/** Actions from OpenAI-shaped `tool_calls` (arguments are a JSON string, shown raw when unparsable). */
export function actionsFromToolCalls(toolCalls: unknown): ActionView[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.map((call) => {
    const fn = asRecord(asRecord(call)?.function);
    const name = asString(fn?.name) ?? "(unnamed tool)";
    const raw = fn?.arguments;
    if (typeof raw !== "string") return toolAction(name, raw ?? {});
    try {
      return toolAction(name, JSON.parse(raw));
    } catch {
      return { tool: name, text: raw };
    }
  });
}

const SHELL_FENCE = /```(?:bash|sh|shell|mswea_bash_command)[ \t]*\n([\s\S]*?)\n?```/g;
const ANY_FENCE = /```[^\n`]*\n([\s\S]*?)\n?```/g;

/** Shell commands in fenced blocks (```bash, ```sh, ```mswea_bash_command), in order. */
export function fencedCommands(text: string): string[] {
  return [...text.matchAll(SHELL_FENCE)].map((m) => m[1]);
}

/** The reply without the fenced blocks whose body is one of `commands` (they show under ACTION). */
export function thoughtWithoutActions(content: string, commands: string[]): string {
  const wanted = new Set(commands.map((c) => c.trim()));
  if (wanted.size === 0) return content.trim();
  const stripped = content.replace(ANY_FENCE, (block, body: string) =>
    wanted.has(body.trim()) ? "" : block,
  );
  return stripped.replace(/\n{3,}/g, "\n\n").trim();
}
