import { lineContent } from "./text-lines.js";

/** One line as `cat -n` prints it: the number right-aligned in 6 columns, a tab, the content. */
export function numberedLine(n: number, content: string): string {
  return `${String(n).padStart(6)}\t${content}`;
}

/** Lines `first`..`last` (1-based, inclusive) of the text, numbered, joined with `\n`. */
export function numberedLines(text: string, starts: number[], first: number, last: number): string {
  const out: string[] = [];
  for (let n = first; n <= last; n++) out.push(numberedLine(n, lineContent(text, starts, n)));
  return out.join("\n");
}
