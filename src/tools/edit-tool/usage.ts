import type { EditorWords } from "../editor/words.js";

/** The expected form of each edit-tool command, shown in errors about that command. */
export const EDIT_TOOL_FORMS = {
  str_replace: [
    "edit-tool str_replace --file /absolute/path/file.py << 'PATCH'",
    "---OLD---",
    "exact text to replace",
    "---NEW---",
    "replacement text",
    "PATCH",
  ].join("\n"),
  create: [
    "edit-tool create --file /absolute/path/new_file.py << 'PATCH'",
    "whole content of the new file",
    "PATCH",
  ].join("\n"),
  insert: [
    "edit-tool insert --file /absolute/path/file.py --line N << 'PATCH'",
    "lines to put after line N (0 = at the top)",
    "PATCH",
  ].join("\n"),
  view: "edit-tool view --file /absolute/path/file.py [--range 40:80]",
  undo: "edit-tool undo --file /absolute/path/file.py",
} as const;

/** The subcommands of edit-tool. */
export type EditToolSubcommand = keyof typeof EDIT_TOOL_FORMS;

/** A short manual of edit-tool for prompt templates. */
export const EDIT_TOOL_USAGE = [
  "edit-tool views and edits text files. An edit-tool command must be the only command in its block; paths are absolute.",
  "Replace text (the ---OLD--- text must occur exactly once in the file: copy it exactly, indentation included, and add neighbouring lines when it is not unique):",
  EDIT_TOOL_FORMS.str_replace,
  "Create a new file (an existing file is never overwritten):",
  EDIT_TOOL_FORMS.create,
  "Insert lines after line N (0 = at the top):",
  EDIT_TOOL_FORMS.insert,
  "View a file with line numbers (--range 40:80 for lines 40 to 80, --range 40:-1 to the end), or a directory:",
  EDIT_TOOL_FORMS.view,
  "Undo your last edit of a file (repeat to go further back):",
  EDIT_TOOL_FORMS.undo,
  "The heredoc word (PATCH above) may be any word that is not a line of your text, quoted or not. Texts are taken line by line: the ---OLD--- and ---NEW--- texts do not include the line break before the next marker, a created file ends with a line break, and inserted text becomes whole lines. Files keep their CRLF line endings, tabs and encoding.",
].join("\n");

/** How the editor core names edit-tool's inputs in its messages. */
export const EDIT_TOOL_WORDS: EditorWords = {
  createText: "the text of the new file",
  oldText: "the ---OLD--- text",
  newText: "the ---NEW--- text",
  insertText: "the text to insert",
  insertLine: "--line",
  range: (start, end) => `--range ${start}:${end}`,
  viewHint: (path) => `edit-tool view --file ${path} --range A:B`,
  undoHint: (path) => `edit-tool undo --file ${path}`,
};
