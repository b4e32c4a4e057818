import { pySplit, pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

// `(_*) (.*)\.py:(.*) (_*)` with Python's `.` (anything but a newline).
const TRACEBACK_HEADER = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;

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
  for (const m of log.matchAll(TRACEBACK_HEADER)) map.set(`${m[2]}.py:${m[3]}`, "FAILED");
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
