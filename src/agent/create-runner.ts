import type { Config } from "../config/schema.js";
import type { ToolResult } from "../tools/base/types.js";
import { createTools, isEditToolCommand, toolSpecs } from "../tools/index.js";
import type { ActionRunner } from "./action-runner.js";

/**
 * The action runner for a config. tool_calls: the listed tools, offered as JSON schemas.
 * backticks: the fenced command runs in bash, unless `edit_tool` is listed and the block starts
 * with `edit-tool`, in which case the agent runs the editor itself (no shell involved).
 * Thrown errors from the environment propagate (they end the task with EnvironmentError).
 */
export function createActionRunner(config: Config): ActionRunner {
  const tools = createTools(config.agent.tools, {
    bashMode: config.agent.bash_mode,
    outputLimit: config.agent.output_limit,
  });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const bash = byName.get("bash")!;
  const editTool = byName.get("edit_tool");
  return {
    specs: config.agent.protocol === "tool_calls" ? toolSpecs(tools) : [],
    async run(action, ctx): Promise<ToolResult> {
      if (action.kind === "command") {
        const tool = editTool && isEditToolCommand(action.command) ? editTool : bash;
        return tool.execute({ command: action.command }, ctx);
      }
      const tool = byName.get(action.name);
      if (!tool) return { output: `unknown tool ${action.name}`, returncode: 1 };
      return tool.execute(action.args, ctx);
    },
    async close() {
      await Promise.all(tools.map((t) => t.close?.()));
    },
  };
}
