import { PY_WS_CLASS } from "./py-text.js";

/**
 * Python `re` patterns (str patterns, as the harness's parsers write them) turned into JavaScript
 * regular expressions that match the same text. The two differ where it matters for test logs:
 * Python's `.` matches `\r` (JavaScript's does not), `\s` / `\d` / `\w` / `\b` are Unicode-aware in
 * Python, and Python's `$` also matches before a final newline while JavaScript's multiline `^` /
 * `$` also break at `\r`. Only what the parsers use is supported; anything else throws at load time.
 */

const WORD = "\\p{L}\\p{N}_";

/** Flags of a Python pattern that change its meaning. */
export interface PyFlags {
  multiline?: boolean;
  dotall?: boolean;
}

function translate(source: string, flags: PyFlags): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const n = source[++i];
      if (n === undefined) throw new Error(`pattern ends with a backslash: ${source}`);
      if (n === "s") out += inClass ? PY_WS_CLASS : `[${PY_WS_CLASS}]`;
      else if (n === "S" && !inClass) out += `[^${PY_WS_CLASS}]`;
      else if (n === "d") out += "\\p{Nd}";
      else if (n === "w") out += inClass ? WORD : `[${WORD}]`;
      else if (n === "W" && !inClass) out += `[^${WORD}]`;
      // Only used right after a word character (`E\b`): the boundary is "no word character next".
      else if (n === "b" && !inClass) out += `(?![${WORD}])`;
      else if (n === "n" || n === "r" || n === "t") out += `\\${n}`;
      else if (/[\\^$.*+?()[\]{}|/-]/.test(n)) out += `\\${n}`;
      else if (/[_ :"'#&~,<>=!@%`]/.test(n)) out += n;
      else throw new Error(`unsupported escape \\${n} in ${source}`);
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (source[i + 1] === "^") out += source[++i];
      // A `]` first in a class is a literal in Python.
      if (source[i + 1] === "]") {
        out += "\\]";
        i++;
      }
    } else if (c === ".") out += flags.dotall ? "[\\s\\S]" : "[^\\n]";
    else if (c === "$") out += flags.multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))";
    else if (c === "^") out += flags.multiline ? "(?:(?<![\\s\\S])|(?<=\\n))" : "(?<![\\s\\S])";
    else out += c;
  }
  return out;
}

/** A compiled Python pattern with Python's `match`, `search`, `findall`, `sub` and `split`. */
export class PyRegex {
  private readonly sticky: RegExp;
  private readonly global: RegExp;

  constructor(
    readonly source: string,
    flags: PyFlags = {},
  ) {
    const body = translate(source, flags);
    this.sticky = new RegExp(body, "uy");
    this.global = new RegExp(body, "gu");
  }

  /** `re.match`: a match starting at position 0, or null. */
  match(text: string): RegExpExecArray | null {
    this.sticky.lastIndex = 0;
    return this.sticky.exec(text);
  }

  /** `re.search`: the first match anywhere, or null. */
  search(text: string): RegExpExecArray | null {
    this.global.lastIndex = 0;
    return this.global.exec(text);
  }

  /** Every match, left to right, without overlaps (`re.finditer`). */
  all(text: string): RegExpExecArray[] {
    return [...text.matchAll(this.global)];
  }

  /**
   * `re.findall`: for a pattern with no group the whole matches, with one group that group, with
   * several the tuples of groups (an unmatched group is "" as in Python).
   */
  findall(text: string): Array<string | string[]> {
    return this.all(text).map((m) => {
      if (m.length === 1) return m[0];
      if (m.length === 2) return m[1] ?? "";
      return m.slice(1).map((g) => g ?? "");
    });
  }

  /** `re.sub` with a plain replacement text (no group references). */
  sub(replacement: string, text: string): string {
    return text.replace(this.global, () => replacement);
  }

  /** `re.split`: the pieces between matches, with the groups' texts between them as Python adds them. */
  split(text: string): string[] {
    const out: string[] = [];
    let last = 0;
    for (const m of this.all(text)) {
      out.push(text.slice(last, m.index));
      for (const g of m.slice(1)) out.push(g ?? "");
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }
}

/** Shorthand for `new PyRegex(source, flags)`. */
export function pyRe(source: string, flags: PyFlags = {}): PyRegex {
  return new PyRegex(source, flags);
}
