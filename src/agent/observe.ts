import type { StrictTemplate } from "../config/template.js";
import type { OutputVars } from "../config/template-vars.js";
import type { ChatMessage, ContentPart } from "../models/types.js";
import type { ToolResult } from "../tools/base/types.js";
import type { Action } from "./protocols/types.js";
import { truncateMiddle } from "./truncate.js";

export interface ObserveOptions {
  template: StrictTemplate;
  /** Variables of the step (limits, step number, ...), without `output`. */
  vars: Record<string, unknown>;
  outputLimit: number;
  timeout: number;
  step: number;
}

/** The text of `exception_info` for a command stopped because the run is stopping (not a timeout). */
export const INTERRUPTED_INFO = "the command was interrupted because the run is stopping";

/**
 * The observation template's `output` for a tool result. `timed_out` and the timeout text only for
 * a command its timeout stopped; a command the abort signal stopped (`interrupted`) says so instead.
 */
export function outputVars(result: ToolResult, outputLimit: number, timeout: number): OutputVars {
  const timedOut = result.timedOut === true;
  return {
    output: truncateMiddle(result.output, outputLimit),
    returncode: result.returncode,
    exception_info: timedOut
      ? `the command timed out after ${timeout} seconds and was stopped`
      : result.interrupted
        ? INTERRUPTED_INFO
        : "",
    timed_out: timedOut,
  };
}

/**
 * The messages that report one action's result: a `tool` message for a tool call (plus a user
 * message carrying images, since tool messages cannot hold images on every API), or a `user`
 * message for a text-protocol command.
 */
export function observationMessages(
  action: Action,
  result: ToolResult,
  o: ObserveOptions,
  durationMs: number,
): ChatMessage[] {
  const text = o.template.render({ ...o.vars, output: outputVars(result, o.outputLimit, o.timeout) });
  const extra = {
    returncode: result.returncode,
    timed_out: result.timedOut === true,
    duration_ms: durationMs,
    step: o.step,
    timestamp: new Date().toISOString(),
  };
  const messages: ChatMessage[] =
    action.kind === "tool"
      ? [{ role: "tool", tool_call_id: action.id, name: action.name, content: text, extra }]
      : [{ role: "user", content: text, extra }];
  if (result.images && result.images.length > 0) {
    const parts: ContentPart[] = [
      { type: "text", text: `Image(s) produced by the last action (${result.images.length}):` },
    ];
    for (const img of result.images)
      parts.push({ type: "image_url", image_url: { url: `data:${img.mediaType};base64,${img.data}` } });
    messages.push({ role: "user", content: parts, extra: { step: o.step, kind: "images" } });
  }
  return messages;
}
