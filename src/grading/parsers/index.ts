import { parseDoctest, parseGoogletest, parseJq, parseMicropython, parseRedis } from "./c-runners.js";
import { normalizeDjangoNames, parseDjango } from "./django.js";
import { parseCargo, parseGoTest, parsePhpunit } from "./go-rust-php.js";
import { parseAnt, parseGradleCustom, parseMaven } from "./java.js";
import {
  parseGrommet,
  parseImmutableJs,
  parseJest,
  parseJestFiles,
  parseJestJson,
  parseKarma,
  parseMarked,
  parseMochaSpec,
  parseTap,
  parseVitest,
} from "./javascript.js";
import { parseMatplotlib, parsePytest, parsePytestOptions } from "./pytest.js";
import { parsePytestV2 } from "./pytest-v2.js";
import {
  parseCucumber,
  parseJekyll,
  parseMinitest,
  parseRspecTransformedJson,
  parseRubyUnit,
} from "./ruby.js";
import { parseSeaborn } from "./seaborn.js";
import { parseSympy } from "./sympy.js";
import type { HarnessVersion, LogParser, ParserContext, StatusMap } from "./types.js";

export { normalizeDjangoNames } from "./django.js";
export { ParserCrash } from "./py-text.js";
export type { HarnessVersion, LogParser, ParserContext, StatusMap, TestStatus } from "./types.js";
export { TEST_STATUSES } from "./types.js";

/**
 * The log parsers by the names the harness's spec table uses (`log_parser` in
 * harness-specs-python.v4.1.0.json; for the other languages its registry's names without the
 * `parse_log_` prefix). A dataset row or a `--specs` file names one of these, with or without
 * the prefix (v5 rows write `parse_log_jest`).
 */
export const LOG_PARSERS: Readonly<Record<string, LogParser>> = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  matplotlib: parseMatplotlib,
  seaborn: parseSeaborn,
  sympy: (log) => parseSympy(log),
  django: (log) => parseDjango(log),
  // Go, Rust, PHP
  gotest: parseGoTest,
  cargo: parseCargo,
  phpunit: parsePhpunit,
  // C and C++
  redis: parseRedis,
  jq: parseJq,
  doctest: parseDoctest,
  micropython_test: parseMicropython,
  googletest: parseGoogletest,
  // Java
  maven: parseMaven,
  ant: parseAnt,
  gradle_custom: parseGradleCustom,
  // Ruby
  minitest: parseMinitest,
  cucumber: parseCucumber,
  ruby_unit: parseRubyUnit,
  rspec_transformed_json: parseRspecTransformedJson,
  jekyll: (log, _h, context) => parseJekyll(log, context),
  // JavaScript and TypeScript
  jest: parseJest,
  jest_json: parseJestJson,
  vitest: parseVitest,
  karma: parseKarma,
  tap: parseTap,
  immutable_js: (log, _h, context) => parseImmutableJs(log, context),
  highlightjs: parseMochaSpec,
  marked: parseMarked,
  carbon: parseJestFiles,
  react_pdf: parseJestFiles,
  grommet: parseGrommet,
};

/** The parsers of Python repositories' logs: an instance graded by any other has the other languages' eval.sh layout. */
const PYTHON_PARSERS: ReadonlySet<string> = new Set([
  "pytest",
  "pytest_options",
  "pytest_v2",
  "matplotlib",
  "seaborn",
  "sympy",
  "django",
]);

/** Whether `name` (with or without the `parse_log_` prefix) reads a Python test runner's log. */
export function isPythonParser(name: string): boolean {
  return PYTHON_PARSERS.has(parserKey(name));
}

/** The names accepted by `getLogParser`. */
export const LOG_PARSER_NAMES = Object.keys(LOG_PARSERS);

/** A parser name as this table spells it: the harness registry's `parse_log_` prefix dropped. */
export function parserKey(name: string): string {
  return name.startsWith("parse_log_") ? name.slice("parse_log_".length) : name;
}

/** The parser of `name`; an unknown name is an error that lists the known ones. */
export function getLogParser(name: string): LogParser {
  const parser = LOG_PARSERS[parserKey(name)];
  if (!parser) {
    throw new Error(
      `unknown log parser ${JSON.stringify(name)}; known parsers: ${LOG_PARSER_NAMES.join(", ")}`,
    );
  }
  return parser;
}

/** Options of `parseTestLog`. */
export interface ParseOptions {
  harness?: HarnessVersion;
  /** For the django parser: add the other Python version's spelling of each name (default true). */
  normalizeDjango?: boolean;
  /** The instance, for the parsers that pick a format by its id (jekyll, immutable_js). */
  context?: ParserContext;
}

/** Runs the named parser on `log`, then (django) the cross-Python name normalisation. */
export function parseTestLog(parserName: string, log: string, options: ParseOptions = {}): StatusMap {
  const map = getLogParser(parserName)(log, options.harness ?? "4.1", options.context);
  if (parserKey(parserName) === "django" && options.normalizeDjango !== false)
    return normalizeDjangoNames(map);
  return map;
}
