import { EditorError } from "./file-access.js";
import { numberedLine } from "./numbered.js";
import { lineContent, lineEnding, lineStarts } from "./text-lines.js";
import type { EditorWords } from "./words.js";

/** Checks a requested range against the file's line count; returns the lines to show, inclusive. */
export function resolveRange(
  range: [number, number],
  lineCount: number,
  path: string,
  words: EditorWords,
): [number, number] {
  const [start, end] = range;
  const asked = words.range(start, end);
  if (start < 1) {
    throw new EditorError(`${asked} is invalid: lines are numbered from 1, so the start must be at least 1.`);
  }
  if (start > lineCount) {
    throw new EditorError(
      `${asked} is invalid: ${path} has ${lineCount} line${lineCount === 1 ? "" : "s"}, ` +
        `so the start must be between 1 and ${lineCount}.`,
    );
  }
  if (end < -1 || end === 0) {
    throw new EditorError(
      `${asked} is invalid: the end must be a line number, or -1 for the end of the file.`,
    );
  }
  if (end !== -1 && end < start) {
    throw new EditorError(
      `${asked} is invalid: the end (${end}) comes before the start (${start}). ` +
        `Use ${words.range(start, -1)} to view from line ${start} to the end of the file.`,
    );
  }
  return [start, end === -1 ? lineCount : Math.min(end, lineCount)];
}

/**
 * A file's lines as `cat -n` prints them, under a header naming the lines shown, clipped at whole
 * lines to `limit` characters with a note saying how to see the rest. Tabs and non-ASCII text are
 * shown as they are; the `\r` of CRLF endings is not shown (the header says the file uses them).
 */
export function renderFileView(
  path: string,
  text: string,
  range: [number, number] | undefined,
  limit: number,
  words: EditorWords,
): string {
  const starts = lineStarts(text);
  const count = starts.length;
  if (count === 0) return `${path} is empty (0 bytes).`;
  const [first, last] = range ? resolveRange(range, count, path, words) : [1, count];
  const body: string[] = [];
  let used = 0;
  let shownLast = first - 1;
  let note = "";
  for (let n = first; n <= last; n++) {
    const content = lineContent(text, starts, n);
    const line = numberedLine(n, content);
    if (used + line.length + 1 > limit) {
      if (body.length === 0) {
        body.push(line.slice(0, limit));
        shownLast = n;
        note = `[Line ${n} is ${content.length} characters long; only its beginning is shown. Read it from the shell in pieces, e.g. sed -n '${n}p' ${path} | cut -c1-2000.]`;
      } else {
        const rangeEnd = range && range[1] !== -1 ? last : -1;
        note = `[Clipped after line ${shownLast} to stay within ${limit} characters. Continue with ${words.range(shownLast + 1, rangeEnd)}, or find the lines you need with grep -n 'PATTERN' ${path}.]`;
      }
      break;
    }
    body.push(line);
    used += line.length + 1;
    shownLast = n;
  }
  const crlf = lineEnding(text) === "\r\n" ? " (CRLF line endings)" : "";
  const lines = [`${path}, lines ${first}-${shownLast} of ${count}${crlf}:`, ...body];
  if (shownLast === count && !text.endsWith("\n")) lines.push("(no newline at the end of the file)");
  if (note) lines.push(note);
  return lines.join("\n");
}
