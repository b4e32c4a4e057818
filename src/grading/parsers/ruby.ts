import { parseLines } from "./line-rules.js";
import { MINITEST_LINE } from "./line-shapes.js";
import { pyRe } from "./py-regex.js";
import type { ParserContext, StatusMap } from "./types.js";

/** `^(.+)\. .*=.*(\.|F|E).*$`, matched in linear time (line-shapes.ts). */
const MINITEST = MINITEST_LINE;

/** `parse_log_minitest` (`--verbose`): `TestClass#test_name = 0.01 s = .` (`F`, `E` failed). */
export function parseMinitest(log: string): StatusMap {
  return parseLines(log, MINITEST, { name: 1, status: 2 }, { ".": "PASSED", F: "FAILED", E: "FAILED" });
}

const CUCUMBER = pyRe("^(.*) \\.+(\\.|F)");

/** `parse_log_cucumber` (`--format progress` with names): `name ....` passed, `name ...F` failed. */
export function parseCucumber(log: string): StatusMap {
  return parseLines(log, CUCUMBER, { name: 1, status: 2 }, { ".": "PASSED", F: "FAILED" });
}

const RUBY_UNIT = pyRe("^\\s*(?:test: )?(.+):\\s+(\\.|E\\b|F\\b|O\\b)");

/** `parse_log_ruby_unit` (fluentd, faker; test-unit's verbose output): `test_name: .`, `E`/`F` failed, `O` omitted (skipped). */
export function parseRubyUnit(log: string): StatusMap {
  return parseLines(
    log,
    RUBY_UNIT,
    { name: 1, status: 2 },
    { ".": "PASSED", E: "FAILED", F: "FAILED", O: "SKIPPED" },
  );
}

const RSPEC = pyRe("(.+) - (passed|failed)");

/** `parse_log_rspec_transformed_json` (fastlane, fpm, rubocop): RSpec's JSON turned into `full description - passed|failed` lines. */
export function parseRspecTransformedJson(log: string): StatusMap {
  return parseLines(log, RSPEC, { name: 1, status: 2 }, { passed: "PASSED", failed: "FAILED" });
}

/**
 * `parse_log_jekyll`: jekyll's instances use two runners; the pull request number (the text after
 * the first `-` of the id) picks minitest (9141, 8047, 8167) or cucumber (8761, 8771). Any other
 * id is an error, as in the harness.
 */
export function parseJekyll(log: string, context: ParserContext = {}): StatusMap {
  const pr = (context.instanceId ?? "").split("-")[1];
  if (["9141", "8047", "8167"].includes(pr)) return parseMinitest(log);
  if (["8761", "8771"].includes(pr)) return parseCucumber(log);
  throw new Error(
    `log parser jekyll: unknown instance id ${JSON.stringify(context.instanceId)} (it knows jekyll 9141, 8047, 8167, 8761, 8771)`,
  );
}
