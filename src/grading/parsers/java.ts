import { parseLines } from "./line-rules.js";
import { GRADLE_FULL_LINE } from "./line-shapes.js";
import { pyRe } from "./py-regex.js";
import { pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

const MAVEN_TEST = pyRe("^.*-Dtest=(\\S+).*$");
const MAVEN_RESULT = pyRe("^.*BUILD (SUCCESS|FAILURE)$");

const BUILD_STATUS: Readonly<Record<string, string>> = { SUCCESS: "PASSED", FAILURE: "FAILED" };

/**
 * `parse_log_maven` (gson, druid, javaparser): Maven prints no passing tests, so the eval script
 * runs one `mvn test -Dtest=NAME` per test under `set -x`; each `-Dtest=NAME` line queues a test
 * and each `BUILD SUCCESS` / `BUILD FAILURE` line is the result of the oldest queued one. Results
 * seen before any test was queued are paired, oldest first, with the tests queued after them.
 */
export function parseMaven(log: string): StatusMap {
  const map: StatusMap = new Map();
  const pending: string[] = [];
  const unmatched: string[] = [];
  for (const line of log.split("\n")) {
    const stripped = pyStrip(line);
    const t = MAVEN_TEST.match(stripped);
    if (t) pending.push(t[1]);
    const r = MAVEN_RESULT.match(stripped);
    if (!r) continue;
    const name = pending.shift();
    if (name === undefined) unmatched.push(r[1]);
    else map.set(name, BUILD_STATUS[r[1]]);
  }
  while (pending.length > 0 && unmatched.length > 0) {
    map.set(pending.shift() as string, BUILD_STATUS[unmatched.shift() as string]);
  }
  return map;
}

const ANT = pyRe("^\\s*\\[junit\\]\\s+\\[(PASS|FAIL|ERR)\\]\\s+(.*)$");

/** `parse_log_ant` (lombok): `[junit] [PASS] name`, `[junit] [FAIL] name`, `[junit] [ERR] name` (failed). */
export function parseAnt(log: string): StatusMap {
  return parseLines(log, ANT, { name: 2, status: 1 }, { PASS: "PASSED", FAIL: "FAILED", ERR: "FAILED" });
}

/** `^([^>].+)\s+(PASSED|FAILED)$`, matched in linear time (line-shapes.ts). */
const GRADLE_FULL = GRADLE_FULL_LINE;
const GRADLE_NAME = pyRe("^([^>]\\S*\\s+>\\s+\\S+)$");
const GRADLE_STATUS = pyRe("^(PASSED|FAILED)$");

/**
 * `parse_log_gradle_custom` (lucene, rxjava; the image's Gradle init script prints every test):
 * `pkg.Class > method PASSED` on one line, or the name `pkg.Class > method` alone and its status
 * alone on a later line (interleaved output); a line starting with `>` is never a test.
 */
export function parseGradleCustom(log: string): StatusMap {
  const map: StatusMap = new Map();
  let pending: string | undefined;
  for (const line of log.split("\n")) {
    const stripped = pyStrip(line);
    const full = GRADLE_FULL.match(stripped);
    if (full) {
      map.set(full[1], full[2]);
      pending = undefined;
      continue;
    }
    const name = GRADLE_NAME.match(stripped);
    if (name) {
      pending = name[1];
      continue;
    }
    if (pending !== undefined) {
      const status = GRADLE_STATUS.match(stripped);
      if (status) {
        map.set(pending, status[1]);
        pending = undefined;
      }
    }
  }
  return map;
}
