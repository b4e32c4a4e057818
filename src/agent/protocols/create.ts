import type { Config } from "../../config/schema.js";
import type { ToolSpec } from "../../models/types.js";
import { createBackticksProtocol } from "./backticks.js";
import { createToolCallsProtocol } from "./tool-calls.js";
import type { Protocol } from "./types.js";

/** The protocol a config asks for. */
export function createProtocol(config: Config, specs: ToolSpec[]): Protocol {
  return config.agent.protocol === "tool_calls"
    ? createToolCallsProtocol(specs)
    : createBackticksProtocol(config.agent.action_tag, config.model.action_regex);
}
