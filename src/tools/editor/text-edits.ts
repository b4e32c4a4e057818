import { EditorError } from "./file-access.js";
import { notFoundHints } from "./not-found-hints.js";
import { numberedLines } from "./numbered.js";
import { lineAt, lineEnding, lineStarts, occurrences, withLineEnding } from "./text-lines.js";
import type { EditorWords } from "./words.js";

/** The new text of a file and the message describing the change (with a numbered snippet). */
export interface EditOutcome {
  text: string;
  message: string;
}

const CONTEXT_LINES = 4;
const MAX_LISTED = 20;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Lines `first`..`last` of the new text with a few lines of context, under a header. */
function snippet(text: string, first: number, last: number): string {
  const starts = lineStarts(text);
  if (starts.length === 0) return "The file is now empty.";
  const from = Math.max(1, first - CONTEXT_LINES);
  const to = Math.min(starts.length, Math.max(last, first) + CONTEXT_LINES);
  return `Lines ${from}-${to} after the edit:\n${numberedLines(text, starts, from, to)}`;
}

/**
 * Replaces `oldStr` when it occurs exactly once (overlapping occurrences count). In a file whose
 * line breaks are all CRLF, the `\n` line breaks of both texts are written as `\r\n` first, so text
 * copied from a view (which hides the `\r`) matches and the file keeps its line endings.
 */
export function replaceOnce(
  text: string,
  oldStr: string,
  newStr: string,
  path: string,
  words: EditorWords,
): EditOutcome {
  if (oldStr === "") {
    throw new EditorError(
      `Nothing to replace: ${words.oldText} is empty. It must be the exact text to replace, copied from the file, with enough ` +
        `lines to occur only once. To add text without replacing any, use insert.`,
    );
  }
  if (oldStr === newStr) {
    throw new EditorError(
      `No change: ${words.oldText} and ${words.newText} are the same, so the edit would change nothing. ` +
        `Put the text as it should read after the edit in ${words.newText}.`,
    );
  }
  const eol = lineEnding(text);
  const old = withLineEnding(oldStr, eol);
  const neu = withLineEnding(newStr, eol);
  const found = occurrences(text, old);
  if (found.length === 0) {
    const hints = notFoundHints(text, oldStr);
    throw new EditorError(
      `No replacement was made: ${words.oldText} does not occur in ${path}. It must match the file exactly, ` +
        `character for character, including indentation and line breaks.${hints} ` +
        `View the lines with ${words.viewHint(path)} and copy them exactly.`,
    );
  }
  if (found.length > 1) {
    const lines = [...new Set(found.map((at) => lineAt(text, at)))];
    const listed = lines.slice(0, MAX_LISTED).join(", ") + (lines.length > MAX_LISTED ? ", ..." : "");
    throw new EditorError(
      `No replacement was made: ${words.oldText} occurs ${found.length} times in ${path}, starting on ` +
        `${lines.length === 1 ? "line" : "lines"} ${listed}. It must occur exactly once: add surrounding lines to ${words.oldText} so that it matches ` +
        `only the place you mean to change.`,
    );
  }
  const at = found[0];
  const result = text.slice(0, at) + neu + text.slice(at + old.length);
  const first = lineAt(text, at);
  const oldLast = lineAt(text, at + Math.max(old.length - 1, 0));
  const newLast = lineAt(result, at + Math.max(neu.length - 1, 0));
  const where = oldLast > first ? `lines ${first}-${oldLast}` : `line ${first}`;
  return {
    text: result,
    message:
      `Edited ${path}: replaced the text on ${where}.\n${snippet(result, first, newLast)}\n` +
      `Check the lines above; if the edit is wrong, revert it with ${words.undoHint(path)}.`,
  };
}

/**
 * Inserts `newStr` as whole lines after line `after` (0 = before the first line). A line break (the
 * file's own kind) ends the inserted text when it has none; a file without a final newline keeps
 * lacking one when the text goes at its end.
 */
export function insertAfter(
  text: string,
  after: number,
  newStr: string,
  path: string,
  words: EditorWords,
): EditOutcome {
  const starts = lineStarts(text);
  const count = starts.length;
  if (after < 0 || after > count) {
    const valid =
      count === 0
        ? `${path} is empty, so the only valid value is 0`
        : `${path} has ${plural(count, "line")}, so it must be between 0 (before the first line) and ${count} (after the last line)`;
    throw new EditorError(`${words.insertLine} ${after} is out of range: ${valid}.`);
  }
  if (newStr === "") {
    throw new EditorError(`Nothing to insert: ${words.insertText} is empty. Give the lines to insert.`);
  }
  const eol = lineEnding(text);
  let block = withLineEnding(newStr, eol);
  if (!block.endsWith("\n")) block += eol;
  const added = block.split("\n").length - 1;
  let result: string;
  if (after === count && count > 0 && !text.endsWith("\n")) {
    result = text + eol + block.slice(0, block.length - eol.length);
  } else {
    const offset = after < count ? starts[after] : text.length;
    result = text.slice(0, offset) + block + text.slice(offset);
  }
  const place = after === 0 ? "at the top of" : `after line ${after} of`;
  return {
    text: result,
    message:
      `Inserted ${plural(added, "line")} ${place} ${path}.\n${snippet(result, after + 1, after + added)}\n` +
      `Check the lines above; if the edit is wrong, revert it with ${words.undoHint(path)}.`,
  };
}
