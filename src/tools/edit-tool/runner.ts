import { ArgumentError, errorResult, rejectUnknown, requireString } from "../base/args.js";
import type { Tool, ToolContext, ToolResult } from "../base/types.js";
import { Editor, type EditorOptions } from "../editor/editor.js";
import { type EditToolCommand, parseEditToolCommand } from "./parse.js";
import { EDIT_TOOL_USAGE, EDIT_TOOL_WORDS } from "./usage.js";

/** Runs edit-tool commands through one editor (so with one undo history). */
export interface EditToolRunner {
  /** Runs a parsed command. */
  run(command: EditToolCommand, ctx: ToolContext): Promise<ToolResult>;
  /** Parses a block and runs it; a parse error comes back as a `returncode: 1` result. */
  execute(text: string, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * The heredoc edit-tool of the backticks protocol, handled by the agent itself: the block never
 * reaches a shell, and the editor core touches files only through the environment's readFile,
 * writeFile and exec, so it behaves the same on the host, in bubblewrap and in a container that has
 * no Node.
 */
export function createEditToolRunner(options: Omit<EditorOptions, "words"> = {}): EditToolRunner {
  const editor = new Editor({ ...options, words: EDIT_TOOL_WORDS });
  function run(command: EditToolCommand, ctx: ToolContext): Promise<ToolResult> {
    switch (command.kind) {
      case "view":
        return editor.view(ctx, command.path, command.range);
      case "create":
        return editor.create(ctx, command.path, command.text);
      case "str_replace":
        return editor.strReplace(ctx, command.path, command.oldText, command.newText);
      case "insert":
        return editor.insert(ctx, command.path, command.line, command.text);
      case "undo":
        return editor.undo(ctx, command.path);
    }
  }
  return {
    run,
    async execute(text, ctx) {
      const parsed = parseEditToolCommand(text);
      return parsed.ok ? run(parsed.command, ctx) : errorResult(parsed.error);
    },
  };
}

/**
 * edit-tool as a Tool, for agents that keep their tools in one list: `execute({command: block})`
 * runs a whole edit-tool block. Its description is EDIT_TOOL_USAGE.
 */
export function createEditTool(options: Omit<EditorOptions, "words"> = {}): Tool {
  const runner = createEditToolRunner(options);
  return {
    name: "edit_tool",
    description: EDIT_TOOL_USAGE,
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", description: "The whole edit-tool block, heredoc included." },
      },
      required: ["command"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      try {
        rejectUnknown(args, ["command"], "edit_tool");
        return await runner.execute(requireString(args, "command", "the edit-tool block"), ctx);
      } catch (err) {
        if (err instanceof ArgumentError) return errorResult(err.message);
        throw err;
      }
    },
  };
}
