import { parseLines } from "./line-rules.js";
import { pyRe } from "./py-regex.js";
import { ParserCrash, pyStrip } from "./py-text.js";
import type { ParserContext, StatusMap } from "./types.js";

const JEST = pyRe("^\\s*(✓|✕|○)\\s(.+?)(?:\\s\\((\\d+\\s*m?s)\\))?$");

/** `parse_log_jest` (`--verbose`): `✓ name (3 ms)`, `✕ name`, `○ name` (skipped); the duration is not part of the name. */
export function parseJest(log: string): StatusMap {
  return parseLines(
    log,
    JEST,
    { name: 2, status: 1 },
    { "✓": "PASSED", "✕": "FAILED", "○": "SKIPPED" },
    { rename: (name) => pyStrip(name) },
  );
}

const JEST_JSON = pyRe("^\\[(PASSED|FAILED)\\]\\s(.+)$");

/** `parse_log_jest_json`: Jest's `--json` piped through the harness's jq transform, `[PASSED] full name` lines. */
export function parseJestJson(log: string): StatusMap {
  return parseLines(log, JEST_JSON, { name: 2, status: 1 }, { PASSED: "PASSED", FAILED: "FAILED" });
}

const VITEST = pyRe("^\\s*(✓|×|↓)\\s(.+?)(?:\\s(\\d+\\s*m?s?|\\[skipped\\]))?$");

/** `parse_log_vitest` (`--reporter=verbose`): `✓ file > suite > name 3ms`, `×` failed, `↓ ... [skipped]`. */
export function parseVitest(log: string): StatusMap {
  return parseLines(log, VITEST, { name: 2, status: 1 }, { "✓": "PASSED", "×": "FAILED", "↓": "SKIPPED" });
}

const TAP = pyRe("^(ok|not ok) (\\d+) (.+)$");

/** `parse_log_tap` (three.js, axios): `ok 3 name` / `not ok 4 name`; directives such as `# SKIP` stay in the name. */
export function parseTap(log: string): StatusMap {
  return parseLines(log, TAP, { name: 3, status: 1 }, { ok: "PASSED", "not ok": "FAILED" });
}

const KARMA = pyRe("^(\\s*)?([✔✖])?\\s(.*)$");

/**
 * `parse_log_karma` (preact; karma-mocha-reporter): nothing counts before a `Starting browser`
 * line, and everything after `SUMMARY:` is ignored. An indented line without a mark opens a
 * suite when it is deeper than the last one and closes one when it is shallower; `✔ name` and
 * `✖ name` are `suite > ... > name`.
 */
export function parseKarma(log: string): StatusMap {
  const map: StatusMap = new Map();
  let indentNow = -1;
  const suite: string[] = [];
  let started = false;
  for (const line of log.split("\n")) {
    if (line.startsWith("SUMMARY:")) return map;
    if (line.includes("Starting browser")) {
      started = true;
      continue;
    }
    if (!started) continue;
    const m = KARMA.match(line);
    if (!m) continue;
    const [, indent, status, name] = m;
    if (indent && !status) {
      if (indent.length > indentNow) {
        indentNow = indent.length;
        suite.push(name);
      } else if (indent.length < indentNow) {
        indentNow = indent.length;
        // The harness's list.pop() on an empty suite raises (IndexError): the instance is an error.
        if (suite.pop() === undefined) throw new ParserCrash("karma", line);
        continue;
      }
    }
    if (status === "✔" || status === "✖") {
      map.set([...suite, name].join(" > "), status === "✔" ? "PASSED" : "FAILED");
    }
  }
  return map;
}

/**
 * `parse_log_immutable_js`: immutable-js's two instances use different runners; the number at the
 * end of the id picks Jest's verbose output (2006) or its JSON transform (2005). Any other id is an
 * error, as in the harness.
 */
export function parseImmutableJs(log: string, context: ParserContext = {}): StatusMap {
  const id = context.instanceId ?? "";
  const pr = id.split("-").pop();
  if (pr === "2006") return parseJest(log);
  if (pr === "2005") return parseJestJson(log);
  throw new Error(
    `log parser immutable_js: unknown instance id ${JSON.stringify(id)} (it knows 2005 and 2006)`,
  );
}

const MOCHA_EPILOGUE = pyRe("\\n[ \\t]*\\d+ passing");
const MOCHA_TIMING = pyRe("\\(\\d+ms\\)");
const MOCHA_FAILED = pyRe("^\\d+\\)");

function withoutTiming(name: string): string {
  return pyStrip(MOCHA_TIMING.search(name) ? MOCHA_TIMING.sub("", name) : name);
}

/**
 * `parse_log_highlightjs` (Mocha's spec reporter): the text from the first `N passing` line on is
 * dropped (the summary and the failure details); a line starting `✓`/`✔` is a passed test and
 * `N) name` a failed one, named `suite.name` after the last line indented by two spaces (the
 * suite); `(12ms)` is cut out of names.
 */
export function parseMochaSpec(log: string): StatusMap {
  const map: StatusMap = new Map();
  let suite: string[] = [];
  for (const line of MOCHA_EPILOGUE.split(log)[0].split("\n")) {
    const stripped = pyStrip(line);
    const check = stripped.startsWith("✓") ? "✓" : stripped.startsWith("✔") ? "✔" : undefined;
    if (check) {
      const name = withoutTiming(line.slice(line.indexOf(check) + check.length));
      map.set([...suite, name].join("."), "PASSED");
    } else if (MOCHA_FAILED.match(stripped)) {
      const name = withoutTiming(line.slice(line.indexOf(")") + 1));
      map.set([...suite, name].join("."), "FAILED");
    } else if (line.startsWith("  ")) {
      suite = [stripped];
    }
  }
  return map;
}

const MARKED_FAILED = pyRe("^\\d+\\)\\s(.*)");

/** `parse_log_marked` (graded fail-only): every `N) name` line at the start of a line is a failed test. */
export function parseMarked(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    const m = MARKED_FAILED.search(line);
    if (m) map.set(pyStrip(m[1]), "FAILED");
  }
  return map;
}

const JEST_FILE_RULES: Array<[ReturnType<typeof pyRe>, string]> = [
  [pyRe("^PASS\\s(.*)\\s\\([\\d\\.]+ms\\)"), "PASSED"],
  [pyRe("^PASS\\s(.*)\\s\\([\\d\\.]+\\ss\\)"), "PASSED"],
  [pyRe("^PASS\\s(.*)\\s\\([\\d\\.]+s\\)"), "PASSED"],
  [pyRe("^PASS\\s(.*)"), "PASSED"],
  [pyRe("^FAIL\\s(.*)\\s\\([\\d\\.]+ms\\)"), "FAILED"],
  [pyRe("^FAIL\\s(.*)\\s\\([\\d\\.]+\\ss\\)"), "FAILED"],
  [pyRe("^FAIL\\s(.*)\\s\\([\\d\\.]+s\\)"), "FAILED"],
  [pyRe("^FAIL\\s(.*)"), "FAILED"],
];

/**
 * `parse_log_carbon`, also the harness's parser of react-pdf, prettier, scratch-gui and
 * lighthouse (Jest): one result per test file, `PASS path (1.2 s)` / `FAIL path`, the duration cut off.
 */
export function parseJestFiles(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    for (const [rule, status] of JEST_FILE_RULES) {
      const m = rule.match(line);
      if (m) {
        map.set(m[1], status);
        break;
      }
    }
  }
  return map;
}

const GROMMET_TIMING = pyRe("\\s\\([\\d\\.]+\\s?(?:ms|s)\\)$");
const GROMMET_FAIL = pyRe("^FAIL\\s(.*)", { multiline: true });
const GROMMET_PASS = pyRe("^PASS\\s(.*)", { multiline: true });

/** `parse_log_grommet`: Jest's per-file `FAIL path` lines, then its `PASS path` lines, durations cut off. */
export function parseGrommet(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const [rule, status] of [
    [GROMMET_FAIL, "FAILED"],
    [GROMMET_PASS, "PASSED"],
  ] as const) {
    for (const m of rule.all(log)) map.set(GROMMET_TIMING.sub("", pyStrip(m[1])), status);
  }
  return map;
}
