/**
 * Python `str` semantics the harness parsers rely on, reproduced exactly: which characters
 * `str.split()` / `str.strip()` / `re`'s `\s` treat as whitespace. They differ from JavaScript's
 * `\s` and `trim()` (Python counts \x1c-\x1f and \x85, JavaScript counts \ufeff), and a parser
 * that is to agree with the harness result for result has to split the same way.
 */

/** The characters for which Python's `str.isspace()` is true. */
export const PY_WHITESPACE =
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** A regex character-class body (without brackets) matching Python whitespace. */
export const PY_WS_CLASS =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const WS_RUN = new RegExp(`[${PY_WS_CLASS}]+`, "g");
/** The UTF-16 code units of {@link PY_WHITESPACE} (each is one unit). */
const WS_CODES: ReadonlySet<number> = new Set([...PY_WHITESPACE].map((c) => c.charCodeAt(0)));

/** Whether the code unit at `i` of `s` is Python whitespace. */
export function isSpaceAt(s: string, i: number): boolean {
  return WS_CODES.has(s.charCodeAt(i));
}

/** Python's `s.split()` with no arguments: split on whitespace runs, no empty strings. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUN).filter((t) => t.length > 0);
}

/*
 * The strips walk the string from its ends instead of using `[\s]+$`: a regular expression
 * anchored at the end is tried from every position of a whitespace run, and on a long run followed
 * by other text that is quadratic (a 100 kB line of a test log took seconds).
 */

/** Python's `s.strip()`. Linear in the length of `s`. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isSpaceAt(s, start)) start++;
  while (end > start && isSpaceAt(s, end - 1)) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Python's `s.lstrip()`. Linear in the length of `s`. */
export function pyLstrip(s: string): string {
  let start = 0;
  while (start < s.length && isSpaceAt(s, start)) start++;
  return start === 0 ? s : s.slice(start);
}

/** Python's `s.rstrip()`. Linear in the length of `s`. */
export function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && isSpaceAt(s, end - 1)) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** Python's `s.split(sep)[0]` (the text before the first `sep`, or all of `s`). */
export function beforeFirst(s: string, sep: string): string {
  const i = s.indexOf(sep);
  return i < 0 ? s : s.slice(0, i);
}

/**
 * Thrown where the harness's Python code would raise (an `IndexError` on a short line). The
 * harness then records the instance as an error, not as graded; so do we.
 */
export class ParserCrash extends Error {
  constructor(parser: string, line: string) {
    super(
      `log parser ${parser} fails on the line ${JSON.stringify(line)} as the harness's does (IndexError)`,
    );
    this.name = "ParserCrash";
  }
}
