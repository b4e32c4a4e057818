import { parseLines } from "./line-rules.js";
import { GO_TEST_LINE, PHPUNIT_SUITE_LINE } from "./line-shapes.js";
import { pyRe } from "./py-regex.js";
import type { StatusMap } from "./types.js";

/** `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`, matched in linear time (line-shapes.ts). */
const GO_TEST = GO_TEST_LINE;

/** `parse_log_gotest`: `go test -v` result lines, `--- PASS: TestName (0.00s)` (subtests keep their `Parent/sub` names). */
export function parseGoTest(log: string): StatusMap {
  return parseLines(
    log,
    GO_TEST,
    { name: 2, status: 1 },
    { PASS: "PASSED", FAIL: "FAILED", SKIP: "SKIPPED" },
  );
}

const CARGO = pyRe("^test\\s+(\\S+)\\s+\\.\\.\\.\\s+(\\w+)$");

/** `parse_log_cargo`: libtest's `test path::name ... ok` / `... FAILED` lines (`ignored` is not recorded). */
export function parseCargo(log: string): StatusMap {
  return parseLines(log, CARGO, { name: 1, status: 2 }, { ok: "PASSED", FAILED: "FAILED" });
}

/** `^(\w.+) \(.+\)$`, matched in linear time (line-shapes.ts). */
const PHPUNIT_SUITE = PHPUNIT_SUITE_LINE;
const PHPUNIT_TEST = pyRe("^\\s*([✔✘↩])\\s*(.*)$");
const PHPUNIT_STATUS: Readonly<Record<string, string>> = { "✔": "PASSED", "✘": "FAILED", "↩": "SKIPPED" };

/**
 * `parse_log_phpunit` (`--testdox`): a line `Suite Name (Fully\Qualified\Class)` opens a suite,
 * `✔ name` / `✘ name` / `↩ name` under it are `Suite Name > name`. Lines are not stripped; a test
 * before any suite is `None > name`, as Python formats it.
 */
export function parsePhpunit(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite = "None";
  for (const line of log.split("\n")) {
    const s = PHPUNIT_SUITE.match(line);
    if (s) {
      suite = s[1];
      continue;
    }
    const t = PHPUNIT_TEST.match(line);
    if (t) map.set(`${suite} > ${t[2]}`, PHPUNIT_STATUS[t[1]]);
  }
  return map;
}
