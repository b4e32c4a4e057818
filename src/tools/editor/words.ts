/**
 * How one front of the editor names its inputs, so that the shared editor core can tell the model
 * what to do in the terms of the front it used (`old_str` and `view_range` for str_replace_editor,
 * the `---OLD---` text and `--range` for the heredoc edit-tool).
 */
export interface EditorWords {
  /** The whole text of a new file, e.g. `file_text`. */
  createText: string;
  /** The text to replace, e.g. `old_str`. */
  oldText: string;
  /** The replacement text, e.g. `new_str`. */
  newText: string;
  /** The text to insert, e.g. `new_str`. */
  insertText: string;
  /** The argument holding the line to insert after, e.g. `insert_line`. */
  insertLine: string;
  /** A line range as the model would write it, e.g. `view_range [10, 40]` or `--range 10:40`. */
  range(start: number, end: number): string;
  /** How to view a file, e.g. `view with view_range`. */
  viewHint(path: string): string;
  /** How to undo the last edit of a file. */
  undoHint(path: string): string;
}

/** The words of the str_replace_editor JSON tool. */
export const JSON_TOOL_WORDS: EditorWords = {
  createText: "file_text",
  oldText: "old_str",
  newText: "new_str",
  insertText: "new_str",
  insertLine: "insert_line",
  range: (start, end) => `view_range [${start}, ${end}]`,
  viewHint: () => "the view command (with view_range for a part)",
  undoHint: () => "undo_edit",
};
