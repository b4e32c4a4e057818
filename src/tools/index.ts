import type { ToolSpec } from "../models/types.js";
import type { Tool } from "./base/types.js";
import { createBashTool } from "./bash.js";
import { createEditTool } from "./edit-tool/runner.js";
import { createStrReplaceEditorTool } from "./str-replace-editor.js";
import { createViewImageTool } from "./view-image.js";

export { createBashTool } from "./bash.js";
export {
  type EditToolCommand,
  type EditToolParse,
  isEditToolCommand,
  parseEditToolCommand,
} from "./edit-tool/parse.js";
export { createEditTool, createEditToolRunner, type EditToolRunner } from "./edit-tool/runner.js";
export { EDIT_TOOL_USAGE } from "./edit-tool/usage.js";
export { Editor, type EditorOptions } from "./editor/editor.js";
export { createStrReplaceEditorTool } from "./str-replace-editor.js";
export { createViewImageTool } from "./view-image.js";

/** The tool names a config may list (`agent.tools`). */
export type ToolName = "bash" | "str_replace_editor" | "edit_tool" | "view_image";

/** Settings shared by the tools `createTools` makes. */
export interface CreateToolsOptions {
  /** bash: `fresh` (default) or `persistent`. */
  bashMode?: "fresh" | "persistent";
  /** Characters of one tool output before the tool clips it (bash: middle left out; views: tail). */
  outputLimit?: number;
  /** Editor: larger text files are refused. Default 1 MB. */
  maxFileBytes?: number;
  /** Editor and view_image: larger images are refused. Default 5 MB. */
  maxImageBytes?: number;
  /** Persistent bash: milliseconds a command gets to stop after Ctrl-C. Default 2000. */
  interruptGraceMs?: number;
}

/**
 * Makes the named tools, each once, in the order given. `edit_tool` is the heredoc front of the
 * backticks protocol, wrapped as a Tool whose `execute({command})` takes a whole edit-tool block.
 * Throws for a name it does not know (a configuration error, not a model's mistake).
 */
export function createTools(names: readonly ToolName[], opts: CreateToolsOptions = {}): Tool[] {
  const editorOptions = {
    outputLimit: opts.outputLimit,
    maxFileBytes: opts.maxFileBytes,
    maxImageBytes: opts.maxImageBytes,
  };
  const makers: Record<ToolName, () => Tool> = {
    bash: () =>
      createBashTool({
        mode: opts.bashMode,
        outputLimit: opts.outputLimit,
        interruptGraceMs: opts.interruptGraceMs,
      }),
    str_replace_editor: () => createStrReplaceEditorTool(editorOptions),
    edit_tool: () => createEditTool(editorOptions),
    view_image: () => createViewImageTool({ maxImageBytes: opts.maxImageBytes }),
  };
  const tools: Tool[] = [];
  for (const name of new Set(names)) {
    const make = makers[name];
    if (!make) {
      throw new Error(
        `Unknown tool ${JSON.stringify(name)}; the tools are ${Object.keys(makers).join(", ")}.`,
      );
    }
    tools.push(make());
  }
  return tools;
}

/** The tools as offered to a model in the tool_calls protocol. */
export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}
