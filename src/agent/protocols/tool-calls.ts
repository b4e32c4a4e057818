import { jsonTextTooDeep, MAX_JSON_DEPTH } from "../../models/json-depth.js";
import type { ChatMessage, ToolCall, ToolSpec } from "../../models/types.js";
import { argumentsForm } from "./expected-form.js";
import { nulProblem } from "./nul.js";
import { type Action, type ParseResult, type Protocol, textOf } from "./types.js";

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/** Arguments whose text may not hold a NUL byte: what bash runs and the paths the editors open. */
const NUL_FREE = ["command", "path", "file"];

/** A call of `spec` as the API carries it: its name and its arguments object. */
function formOf(spec: ToolSpec | undefined): string {
  return spec
    ? `a call of ${spec.name} with the arguments ${argumentsForm(spec)}`
    : "a call of an offered tool";
}

/** What JSON.parse said, without Node's trailing copy of the text. */
function jsonProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return clip(message.replace(/ \(line \d+ column \d+\)$/, ""), 120);
}

/** A tool call the reply wrote as text, which the server did not turn into one (its tool-call parser is missing or failed). */
const CALL_AS_TEXT =
  /<tool_call>|<function=|<\|tool_call|"name"\s*:\s*"[^"]+"\s*,\s*"(?:arguments|parameters)"\s*:/;

/** Checks one call against the offered tools; returns the action or what was wrong with it. */
function checkCall(call: ToolCall, specs: Map<string, ToolSpec>): Action | string {
  const fn = call && typeof call === "object" ? call.function : undefined;
  const name = typeof fn?.name === "string" ? fn.name : "";
  const spec = specs.get(name);
  if (!spec)
    return `unknown tool ${JSON.stringify(clip(name, 100))}; the tools are: ${[...specs.keys()].join(", ")}. Call one of them by its name, e.g. ${formOf(specs.values().next().value)}.`;
  const raw: unknown = fn?.arguments ?? "";
  const expected = `The form expected: ${formOf(spec)}.`;
  if (typeof raw !== "string")
    return `the arguments of ${name} must be a JSON object written as text. ${expected}`;
  if (jsonTextTooDeep(raw))
    return `the arguments of ${name} are nested more than ${MAX_JSON_DEPTH} levels deep; send a flat JSON object. ${expected}`;
  let args: unknown;
  try {
    args = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (err) {
    return `the arguments of ${name} are not valid JSON (${jsonProblem(err)}); received: ${clip(raw)}. ${expected} Write them as one JSON object: keys and strings in double quotes, newlines and quotes inside strings escaped (\\n, \\").`;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return `the arguments of ${name} must be a JSON object, not ${Array.isArray(args) ? "an array" : args === null ? "null" : `a ${typeof args}`}; received: ${clip(raw)}. ${expected}`;
  const required = Array.isArray(spec.parameters.required) ? (spec.parameters.required as string[]) : [];
  const missing = required.filter((k) => !(k in args));
  if (missing.length > 0)
    return `${name} needs the argument(s) ${missing.join(", ")}; received: ${clip(raw)}. ${expected}`;
  for (const key of NUL_FREE) {
    const value = (args as Record<string, unknown>)[key];
    const nul = typeof value === "string" ? nulProblem(`the ${key} argument of ${name}`, value) : null;
    if (nul) return nul;
  }
  return {
    kind: "tool",
    id: typeof call.id === "string" ? call.id : "",
    name,
    args: args as Record<string, unknown>,
  };
}

/**
 * The JSON tool-call protocol. One or more calls per reply; several run in order (the prompts and
 * the format error say so). If any call is invalid, none runs: each call id gets a tool message
 * saying what was wrong (or that it was skipped), so the conversation stays valid for the API, and
 * the reply counts as one format error.
 */
export function createToolCallsProtocol(toolSpecs: ToolSpec[]): Protocol {
  const specs = new Map(toolSpecs.map((s) => [s.name, s]));
  const parse = (message: ChatMessage): ParseResult => {
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    if (calls.length === 0) {
      const what = message.tool_calls ? "an empty tool_calls list" : "no tool call";
      const text = textOf(message).trim();
      const received = text ? `, only text: ${JSON.stringify(clip(text, 200))}` : " and no text";
      const asText = CALL_AS_TEXT.test(text)
        ? " The text holds a tool call written out as text, which does not run: make it a real tool call (the API's tool_calls), not text in your message."
        : "";
      return {
        ok: false,
        error: `your reply had ${what}${received}.${asText} Every reply must call at least one of the tools (${[...specs.keys()].join(", ")}); to finish, submit with the bash tool.`,
      };
    }
    const checked = calls.map((c) => checkCall(c, specs));
    const problems = checked.filter((c): c is string => typeof c === "string");
    if (problems.length === 0)
      return { ok: true, actions: checked as Action[], thought: textOf(message).trim() };
    const toolReplies = calls.map((c, i) => ({
      id: c.id,
      text:
        typeof checked[i] === "string"
          ? `Error: ${checked[i]}`
          : "Not run: another tool call in the same reply was invalid. Send the calls again.",
    }));
    return { ok: false, error: problems.join(" "), toolReplies };
  };
  return { name: "tool_calls", toolSpecs, parse, constraint: { kind: "tool_call" } };
}
