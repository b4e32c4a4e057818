/**
 * Line arithmetic on raw file text. A line is its content plus its `\n` (the last line may have
 * none); `\r\n` files are never normalised: the `\r` stays in the text and is only hidden on display.
 */

/** Offsets where each line starts. An empty text has no lines; a final `\n` does not start a line. */
export function lineStarts(text: string): number[] {
  if (text.length === 0) return [];
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1 && i + 1 < text.length; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  return starts;
}

/** Line `n` (1-based) without its line ending (`\n` or `\r\n`). */
export function lineContent(text: string, starts: number[], n: number): string {
  const begin = starts[n - 1];
  const end = n < starts.length ? starts[n] : text.length;
  let line = text.slice(begin, end);
  if (line.endsWith("\n")) line = line.slice(0, -1);
  if (line.endsWith("\r")) line = line.slice(0, -1);
  return line;
}

/** The 1-based line on which the character at `offset` lies. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** `\r\n` when every line break of the text is CRLF (and there is at least one), else `\n`. */
export function lineEnding(text: string): "\n" | "\r\n" {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf > 0 && crlf === lf ? "\r\n" : "\n";
}

/** Writes the bare `\n` line breaks of `s` as `eol` (a no-op for `\n`). */
export function withLineEnding(s: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? s : s.replace(/\r?\n/g, "\r\n");
}

/** Start offsets of every occurrence of `needle`, overlapping ones included. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}
