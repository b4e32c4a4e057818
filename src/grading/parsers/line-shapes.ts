import { isSpaceAt } from "./py-text.js";

/**
 * The harness patterns that a regular expression engine matches in more than linear time, matched
 * by hand in one pass: each function gives what Python's `re.match(PATTERN, line)` gives (the
 * groups as `m[1]`, `m[2]`, ... or null), for one line of a log (no `\n` in it, so Python's `.` and
 * `$` need no care). With backtracking, a `(.+)` followed by a separator and more `.+`/`.*` tries
 * every split of a long line (one line of 100 kB took seconds, a line of repeated separators
 * minutes). test/grading/parsers-linear.unit.test.ts holds each original pattern and compares.
 */

/** A match: index 0 the whole match, then the groups (undefined for a group that did not take part). */
export type LineMatch = ReadonlyArray<string | undefined>;

/** Something that matches one line from its start: a `PyRegex` or one of the shapes below. */
export interface LineMatcher {
  match(line: string): LineMatch | null;
}

/** A shape below: every group takes part in a match. */
interface LineShape extends LineMatcher {
  match(line: string): readonly string[] | null;
}

/**
 * `^PREFIX(.+) \((.+)\)$` where `(.+)` may not be empty: the line ends with `)`, and the greedy
 * first group ends at the last ` (` that leaves at least one character before the `)`. Returns the
 * two groups or null. `first` is the least number of code units the first group needs.
 */
function beforeLastParens(line: string, from: number, first: number): [string, string] | null {
  if (!line.endsWith(")")) return null;
  const open = line.lastIndexOf(" (", line.length - 4);
  if (open < from + first) return null;
  return [line.slice(from, open), line.slice(open + 2, line.length - 1)];
}

/** `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$` (`parse_log_gotest`). */
export const GO_TEST_LINE: LineShape = {
  match(line) {
    if (!line.startsWith("--- ")) return null;
    const status = line.slice(4, 8);
    if (!["PASS", "FAIL", "SKIP"].includes(status) || !line.startsWith(": ", 8)) return null;
    const parts = beforeLastParens(line, 10, 1);
    return parts && [line, status, parts[0], parts[1]];
  },
};

const WORD_START = /^[\p{L}\p{N}_]/u;

/** `^(\w.+) \(.+\)$` (`parse_log_phpunit`'s suite line). */
export const PHPUNIT_SUITE_LINE: LineShape = {
  match(line) {
    const w = WORD_START.exec(line);
    if (!w) return null;
    const parts = beforeLastParens(line, 0, w[0].length + 1);
    return parts && [line, parts[0]];
  },
};

/** How many code points `s` holds, counting up to `atLeast` only. */
function hasCodePoints(s: string, atLeast: number): boolean {
  let n = 0;
  for (const _ of s) if (++n >= atLeast) return true;
  return false;
}

/** `^([^>].+)\s+(PASSED|FAILED)$` (`parse_log_gradle_custom`): the greedy group leaves one space. */
export const GRADLE_FULL_LINE: LineShape = {
  match(line) {
    const status = line.slice(-6);
    if (status !== "PASSED" && status !== "FAILED") return null;
    const space = line.length - 7;
    if (space < 0 || !isSpaceAt(line, space)) return null;
    const name = line.slice(0, space);
    if (name.startsWith(">") || !hasCodePoints(name, 2)) return null;
    return [line, name, status];
  },
};

/**
 * `^(.+)\. .*=.*(\.|F|E).*$` (`parse_log_minitest`): the status is the line's last `.`, `F` or
 * `E`; an `=` must come before it, and the name ends at the last `. ` before that `=`.
 */
export const MINITEST_LINE: LineShape = {
  match(line) {
    let status = -1;
    for (let i = line.length - 1; i >= 0 && status < 0; i--) {
      const c = line[i];
      if (c === "." || c === "F" || c === "E") status = i;
    }
    if (status < 1) return null;
    const eq = line.lastIndexOf("=", status - 1);
    if (eq < 3) return null;
    const dot = line.lastIndexOf(". ", eq - 2);
    if (dot < 1) return null;
    return [line, line.slice(0, dot), line[status]];
  },
};

/** The index after `\s*` from `at`. */
function skipSpaces(line: string, at: number): number {
  let i = at;
  while (i < line.length && isSpaceAt(line, i)) i++;
  return i;
}

/**
 * `^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$` (`parse_log_googletest`): the line ends with `)`; the
 * name runs to the last space followed by `(`, and starts after the last `[ OK ] ` (or
 * `[ FAILED ] `) that ends before that space.
 */
export const GOOGLETEST_LINE: LineShape = {
  match(line) {
    if (!line.endsWith(")")) return null;
    let paren = -1;
    for (let i = line.length - 3; i >= 0; i--) {
      if (line[i + 1] === "(" && isSpaceAt(line, i)) {
        paren = i;
        break;
      }
    }
    if (paren < 0) return null;
    for (
      let open = line.lastIndexOf("[", paren);
      open >= 0;
      open = open > 0 ? line.lastIndexOf("[", open - 1) : -1
    ) {
      let at = skipSpaces(line, open + 1);
      const status = line.startsWith("OK", at) ? "OK" : line.startsWith("FAILED", at) ? "FAILED" : "";
      if (status === "") continue;
      at = skipSpaces(line, at + status.length);
      if (line[at] !== "]" || !isSpaceAt(line, at + 1)) continue;
      if (at + 2 <= paren) return [line, status, line.slice(at + 2, paren)];
    }
    return null;
  },
};

/**
 * Python's `re.sub(r"\s+in\s+\S+$", "", name)` (`parse_log_redis` on a failed test's name): a
 * trailing ` in FILE` and the spaces before it removed, read from the end.
 */
export function dropTrailingInFile(name: string): string {
  let at = name.length;
  while (at > 0 && !isSpaceAt(name, at - 1)) at--;
  if (at === name.length) return name;
  const tokenStart = at;
  while (at > 0 && isSpaceAt(name, at - 1)) at--;
  if (at === tokenStart || at < 2 || name.slice(at - 2, at) !== "in") return name;
  const inStart = at - 2;
  at = inStart;
  while (at > 0 && isSpaceAt(name, at - 1)) at--;
  return at === inStart ? name : name.slice(0, at);
}
