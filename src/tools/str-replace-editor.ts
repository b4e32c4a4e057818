import {
  ArgumentError,
  asInteger,
  describeValue,
  errorResult,
  isGiven,
  rejectUnknown,
  requireString,
} from "./base/args.js";
import { formatBytes } from "./base/format-bytes.js";
import type { Tool, ToolContext, ToolResult } from "./base/types.js";
import { Editor, type EditorOptions } from "./editor/editor.js";

const COMMANDS = ["view", "create", "str_replace", "insert", "undo_edit"] as const;
type Command = (typeof COMMANDS)[number];

/** The arguments each command takes, `command` and `path` included. */
const TAKES: Record<Command, readonly string[]> = {
  view: ["command", "path", "view_range"],
  create: ["command", "path", "file_text"],
  str_replace: ["command", "path", "old_str", "new_str"],
  insert: ["command", "path", "insert_line", "new_str"],
  undo_edit: ["command", "path"],
};

const ALL_ARGS = ["command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range"];

function description(maxFileBytes: number): string {
  return [
    "View, create and edit text files in the task's environment. Every path must be absolute (start with /).",
    "Commands:",
    "- view: a file's lines numbered like `cat -n` (view_range [start, end] shows part of it; an end of -1 means to the end of the file), a directory's non-hidden entries two levels deep, or a PNG, JPEG, GIF or WebP image.",
    "- create: make a new file whose whole content is file_text. An existing file is never overwritten.",
    "- str_replace: replace old_str with new_str (leave new_str out, or give an empty one, to delete old_str). old_str must occur exactly once in the file and match it character for character, indentation included: copy it from a view without the line numbers, and add neighbouring lines when it is not unique.",
    "- insert: insert new_str as whole lines after line insert_line (0 puts it at the top of the file).",
    "- undo_edit: revert the last edit this tool made to the file; repeat to go further back.",
    "Files keep their line endings, tabs, encoding and a missing final newline. In a file with Windows (CRLF) line endings, write old_str and new_str with ordinary newlines: they are converted to CRLF.",
    `Binary files and files over ${formatBytes(maxFileBytes)} are refused; use the shell for those. Long views are clipped: narrow them with view_range, or find line numbers with grep -n.`,
  ].join("\n");
}

const PARAMETERS = {
  type: "object",
  properties: {
    command: { type: "string", enum: [...COMMANDS], description: "What to do." },
    path: { type: "string", description: "Absolute path of the file or directory, e.g. /repo/src/app.py." },
    file_text: { type: "string", description: "create: the whole content of the new file." },
    old_str: {
      type: "string",
      description: "str_replace: the exact text to replace; it must occur exactly once.",
    },
    new_str: {
      type: "string",
      description:
        "str_replace: the text to put in place of old_str (empty deletes it). insert: the lines to insert.",
    },
    insert_line: { type: "integer", description: "insert: the line after which new_str goes; 0 is the top." },
    view_range: {
      type: "array",
      items: { type: "integer" },
      minItems: 2,
      maxItems: 2,
      description: "view of a file: [start, end] line numbers, counting from 1; end -1 means to the end.",
    },
  },
  required: ["command", "path"],
  additionalProperties: false,
};

function parseRange(value: unknown): [number, number] {
  const items = Array.isArray(value) ? value.map(asInteger) : [];
  if (items.length !== 2 || items[0] === undefined || items[1] === undefined) {
    throw new ArgumentError(
      `view_range must be two line numbers [start, end] (an end of -1 means to the end of the file); ` +
        `got ${describeValue(value)}.`,
    );
  }
  return [items[0], items[1]];
}

function commandOf(args: Record<string, unknown>): Command {
  const value = args.command;
  if (!isGiven(args, "command")) {
    throw new ArgumentError(`Missing argument command: one of ${COMMANDS.join(", ")}.`);
  }
  if (typeof value !== "string" || !(COMMANDS as readonly string[]).includes(value)) {
    throw new ArgumentError(
      `Unknown command ${describeValue(value)}; the commands are ${COMMANDS.join(", ")}.`,
    );
  }
  return value as Command;
}

async function run(editor: Editor, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  rejectUnknown(args, ALL_ARGS, "str_replace_editor");
  const command = commandOf(args);
  const unused = ALL_ARGS.filter((name) => !TAKES[command].includes(name) && isGiven(args, name));
  if (unused.length > 0) {
    const takes = TAKES[command].filter((n) => n !== "command").join(", ");
    throw new ArgumentError(`${command} does not use ${unused.join(", ")}; it takes ${takes}.`);
  }
  const path = requireString(args, "path", "the absolute path of the file or directory");
  switch (command) {
    case "view":
      return editor.view(ctx, path, isGiven(args, "view_range") ? parseRange(args.view_range) : undefined);
    case "create":
      return editor.create(ctx, path, requireString(args, "file_text", "the whole content of the new file"));
    case "str_replace": {
      const oldStr = requireString(args, "old_str", "the exact text to replace");
      const newStr = isGiven(args, "new_str") ? requireString(args, "new_str", "the replacement text") : "";
      return editor.strReplace(ctx, path, oldStr, newStr);
    }
    case "insert": {
      if (!isGiven(args, "insert_line")) {
        throw new ArgumentError(
          "Missing argument insert_line: the line after which new_str goes (0 is the top).",
        );
      }
      const line = asInteger(args.insert_line);
      if (line === undefined) {
        throw new ArgumentError(
          `insert_line must be a whole number; got ${describeValue(args.insert_line)}.`,
        );
      }
      return editor.insert(ctx, path, line, requireString(args, "new_str", "the lines to insert"));
    }
    case "undo_edit":
      return editor.undo(ctx, path);
  }
}

/** The str_replace_editor tool of the tool_calls protocol, with its own editor and undo history. */
export function createStrReplaceEditorTool(options: Omit<EditorOptions, "words"> = {}): Tool {
  const editor = new Editor(options);
  return {
    name: "str_replace_editor",
    description: description(options.maxFileBytes ?? 1_000_000),
    parameters: PARAMETERS,
    async execute(args, ctx) {
      try {
        return await run(editor, args, ctx);
      } catch (err) {
        if (err instanceof ArgumentError) return errorResult(err.message);
        throw err;
      }
    },
  };
}
