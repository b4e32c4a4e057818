import { parseLines } from "./line-rules.js";
import { dropTrailingInFile, GOOGLETEST_LINE } from "./line-shapes.js";
import { pyRe } from "./py-regex.js";
import { ParserCrash } from "./py-text.js";
import type { StatusMap } from "./types.js";
import { xmlElements } from "./xml-scan.js";

const REDIS = pyRe("^\\[(ok|err|skip|ignore)\\]:\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$");

/** `parse_log_redis` (redis, valkey): `[ok]: name (12 ms)`, `[err]: name in tests/x.tcl` (the file is cut off), `[skip]`/`[ignore]`. */
export function parseRedis(log: string): StatusMap {
  return parseLines(
    log,
    REDIS,
    { name: 2, status: 1 },
    { ok: "PASSED", err: "FAILED", skip: "SKIPPED", ignore: "SKIPPED" },
    { rename: (name, status) => (status === "FAILED" ? dropTrailingInFile(name) : name) },
  );
}

const JQ = pyRe("^\\s*(PASS|FAIL):\\s(.+)$");

/** `parse_log_jq`: automake's `PASS: tests/jqtest` / `FAIL: ...` lines. */
export function parseJq(log: string): StatusMap {
  return parseLines(log, JQ, { name: 2, status: 1 }, { PASS: "PASSED", FAIL: "FAILED" });
}

const MICROPYTHON = pyRe("^(pass|FAIL|skip)\\s+(.+)$");

/** `parse_log_micropython_test`: run-tests.py's `pass  basics/x.py`, `FAIL ...`, `skip ...`. */
export function parseMicropython(log: string): StatusMap {
  return parseLines(
    log,
    MICROPYTHON,
    { name: 2, status: 1 },
    { pass: "PASSED", FAIL: "FAILED", skip: "SKIPPED" },
  );
}

/** `^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$`, matched in linear time (line-shapes.ts). */
const GOOGLETEST = GOOGLETEST_LINE;

/** `parse_log_googletest` (fmt): `[       OK ] Suite.Test (0 ms)` and `[  FAILED  ] Suite.Test (1 ms)`. */
export function parseGoogletest(log: string): StatusMap {
  return parseLines(log, GOOGLETEST, { name: 2, status: 1 }, { OK: "PASSED", FAILED: "FAILED" });
}

/**
 * `parse_log_doctest` (nlohmann/json, test binaries run with `-s -r=xml`): the first
 * `<doctest ...>...</doctest>` document; every `SubCase` of every `TestCase` is `case > subcase`,
 * PASSED when each `Expression` in it has `success="true"` (none counts as passed). A document
 * that is not well-formed fails as the harness's XML parser does.
 */
export function parseDoctest(log: string): StatusMap {
  const map: StatusMap = new Map();
  const start = log.indexOf("<doctest");
  if (start < 0) return map;
  const endAt = log.indexOf("</doctest>", start);
  if (endAt < 0) return map;
  const xml = log.slice(start, endAt + "</doctest>".length);
  const root = xmlElements(xml);
  if (!root) throw new ParserCrash("doctest", xml.slice(0, 200));
  for (const testCase of root.descendants("TestCase")) {
    for (const subCase of testCase.descendants("SubCase")) {
      const passed = subCase.descendants("Expression").every((e) => e.attributes.success === "true");
      // A missing name prints as Python's None.
      const name = `${testCase.attributes.name ?? "None"} > ${subCase.attributes.name ?? "None"}`;
      map.set(name, passed ? "PASSED" : "FAILED");
    }
  }
  return map;
}
