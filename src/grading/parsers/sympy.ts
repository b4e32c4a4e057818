import { pySplit, pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

/**
 * The harness's `re.findall(r"(_*) (.*)\.py:(.*) (_*)", log)`, as the names it yields
 * (`path.py:test`), found line by line in linear time. The pattern cannot cross a line break, so
 * each line holds at most one match (it runs to the line's last space). It starts at the line's
 * first space (after any underscores before it); the greedy `(.*)\.py:` ends at the last `.py:`
 * that still has a space after it, and `(.*) ` at the last space. The regular expression itself
 * backtracked quadratically on a long line without `.py:`.
 */
export function tracebackHeaderNames(log: string): string[] {
  const names: string[] = [];
  for (const line of log.split("\n")) {
    const first = line.indexOf(" ");
    if (first < 0) continue;
    const last = line.lastIndexOf(" ");
    if (last < 4) continue;
    const py = line.lastIndexOf(".py:", last - 4);
    if (py <= first) continue;
    names.push(`${line.slice(first + 1, py)}.py:${line.slice(py + 4, last)}`);
  }
  return names;
}

/**
 * `parse_log_sympy` (`bin/test --verbose`). First every traceback header in the whole text,
 * `___ path/test_x.py:test_name ___`, marks `path/test_x.py:test_name` FAILED (path-qualified,
 * so these keys never match the plain F2P/P2P names). Then each stripped line starting with
 * `test_` and ending in ` E`, ` F` or ` ok` gives its first token ERROR, FAILED or PASSED.
 * The last test of a file prints `test_x ok   [OK]`, which ends in none of those and is
 * therefore never parsed, as in the harness.
 */
export function parseSympy(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const name of tracebackHeaderNames(log)) map.set(name, "FAILED");
  for (const raw of log.split("\n")) {
    const line = pyStrip(raw);
    if (!line.startsWith("test_")) continue;
    const name = pySplit(line)[0];
    if (line.endsWith(" E")) map.set(name, "ERROR");
    if (line.endsWith(" F")) map.set(name, "FAILED");
    if (line.endsWith(" ok")) map.set(name, "PASSED");
  }
  return map;
}
