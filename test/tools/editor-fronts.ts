import type { ToolContext, ToolResult } from "../../src/tools/base/types.js";
import { createEditToolRunner } from "../../src/tools/edit-tool/runner.js";
import { EDIT_TOOL_WORDS } from "../../src/tools/edit-tool/usage.js";
import type { EditorOptions } from "../../src/tools/editor/editor.js";
import { type EditorWords, JSON_TOOL_WORDS } from "../../src/tools/editor/words.js";
import { createStrReplaceEditorTool } from "../../src/tools/str-replace-editor.js";

/** The five editor operations, as one front (JSON tool or heredoc edit-tool) performs them. */
export interface EditorOps {
  view(ctx: ToolContext, path: string, range?: [number, number]): Promise<ToolResult>;
  create(ctx: ToolContext, path: string, text: string): Promise<ToolResult>;
  strReplace(ctx: ToolContext, path: string, oldText: string, newText: string): Promise<ToolResult>;
  insert(ctx: ToolContext, path: string, line: number, text: string): Promise<ToolResult>;
  undo(ctx: ToolContext, path: string): Promise<ToolResult>;
}

export interface EditorFront {
  label: string;
  words: EditorWords;
  /** A fresh instance (its own undo history). */
  make(options?: Omit<EditorOptions, "words">): EditorOps;
}

export const jsonFront: EditorFront = {
  label: "str_replace_editor",
  words: JSON_TOOL_WORDS,
  make(options) {
    const tool = createStrReplaceEditorTool(options);
    return {
      view: (ctx, path, range) =>
        tool.execute(range ? { command: "view", path, view_range: range } : { command: "view", path }, ctx),
      create: (ctx, path, text) => tool.execute({ command: "create", path, file_text: text }, ctx),
      strReplace: (ctx, path, oldText, newText) =>
        tool.execute({ command: "str_replace", path, old_str: oldText, new_str: newText }, ctx),
      insert: (ctx, path, line, text) =>
        tool.execute({ command: "insert", path, insert_line: line, new_str: text }, ctx),
      undo: (ctx, path) => tool.execute({ command: "undo_edit", path }, ctx),
    };
  },
};

/** Picks a heredoc word that is not a line of the body. */
function heredoc(head: string, body: string[]): string {
  let word = "PATCH";
  while (body.some((l) => l.trimEnd() === word)) word += "_END";
  return [`${head} << '${word}'`, ...body, word].join("\n");
}

/** Writes each operation as an edit-tool block and runs it through parse + run, as the agent does. */
export const editToolFront: EditorFront = {
  label: "edit-tool",
  words: EDIT_TOOL_WORDS,
  make(options) {
    const runner = createEditToolRunner(options);
    const file = (path: string) => `--file '${path}'`;
    return {
      view: (ctx, path, range) =>
        runner.execute(`edit-tool view ${file(path)}${range ? ` --range ${range[0]}:${range[1]}` : ""}`, ctx),
      create(ctx, path, text) {
        if (text !== "" && !text.endsWith("\n"))
          throw new Error("edit-tool create always ends a file with a newline");
        const body = text === "" ? [] : text.slice(0, -1).split("\n");
        return runner.execute(heredoc(`edit-tool create ${file(path)}`, body), ctx);
      },
      strReplace: (ctx, path, oldText, newText) =>
        runner.execute(
          heredoc(`edit-tool str_replace ${file(path)}`, [
            "---OLD---",
            ...oldText.split("\n"),
            "---NEW---",
            ...newText.split("\n"),
          ]),
          ctx,
        ),
      insert: (ctx, path, line, text) =>
        runner.execute(heredoc(`edit-tool insert ${file(path)} --line ${line}`, text.split("\n")), ctx),
      undo: (ctx, path) => runner.execute(`edit-tool undo ${file(path)}`, ctx),
    };
  },
};
