import type { ToolSpec } from "../models/types.js";
import type { ToolContext, ToolResult } from "../tools/base/types.js";
import type { Action } from "./protocols/types.js";

/**
 * Runs parsed actions with the task's tools. Tool errors (bad arguments, missing files) come back
 * as results; a thrown error means the environment itself failed (EnvironmentError).
 */
export interface ActionRunner {
  /** Tools offered to the model (tool_calls protocol). */
  readonly specs: ToolSpec[];
  run(action: Action, ctx: ToolContext): Promise<ToolResult>;
  /** Ends persistent shells and the like. */
  close(): Promise<void>;
}
