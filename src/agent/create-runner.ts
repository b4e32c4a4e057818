import type { Config } from "../config/schema.js";
import { createBashTool } from "../tools/bash.js";
import { createStrReplaceEditorTool } from "../tools/str-replace-editor.js";
import type { Tool, ToolResult } from "../tools/types.js";
import type { ActionRunner } from "./action-runner.js";

/**
 * The action runner for a config: JSON tools by name (tool_calls protocol), or the fenced command
 * run by bash (backticks protocol). Thrown errors from the environment propagate (EnvironmentError).
 */
export function createActionRunner(config: Config): ActionRunner {
  const bash = createBashTool({ mode: config.agent.bash_mode });
  const tools: Tool[] = [bash];
  if (config.agent.tools.includes("str_replace_editor")) tools.push(createStrReplaceEditorTool());
  const byName = new Map(tools.map((t) => [t.name, t]));
  const offered = config.agent.protocol === "tool_calls" ? tools : [];
  return {
    specs: offered.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    async run(action, ctx): Promise<ToolResult> {
      if (action.kind === "command") return bash.execute({ command: action.command }, ctx);
      const tool = byName.get(action.name);
      if (!tool) return { output: `unknown tool ${action.name}`, returncode: 1 };
      return tool.execute(action.args, ctx);
    },
    async close() {
      await Promise.all(tools.map((t) => t.close?.()));
    },
  };
}
