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
const LEADING = new RegExp(`^[${PY_WS_CLASS}]+`);
const TRAILING = new RegExp(`[${PY_WS_CLASS}]+$`);

/** Python's `s.split()` with no arguments: split on whitespace runs, no empty strings. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUN).filter((t) => t.length > 0);
}

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(LEADING, "").replace(TRAILING, "");
}

/** Python's `s.lstrip()`. */
export function pyLstrip(s: string): string {
  return s.replace(LEADING, "");
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
