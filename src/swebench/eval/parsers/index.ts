import { normalizeDjangoNames, parseDjango } from "./django.js";
import { parseMatplotlib, parsePytest, parsePytestOptions } from "./pytest.js";
import { parsePytestV2 } from "./pytest-v2.js";
import { parseSeaborn } from "./seaborn.js";
import { parseSympy } from "./sympy.js";
import type { HarnessVersion, LogParser, StatusMap } from "./types.js";

export { normalizeDjangoNames } from "./django.js";
export { ParserCrash } from "./py-text.js";
export type { HarnessVersion, LogParser, StatusMap, TestStatus } from "./types.js";
export { TEST_STATUSES } from "./types.js";

/**
 * The log parsers by the names the harness's spec table uses (`log_parser` in
 * harness-specs-python.v4.1.0.json). A dataset row or a `--specs` file names one of these.
 */
export const LOG_PARSERS: Readonly<Record<string, LogParser>> = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  matplotlib: parseMatplotlib,
  seaborn: parseSeaborn,
  sympy: (log) => parseSympy(log),
  django: (log) => parseDjango(log),
};

/** The names accepted by `getLogParser`. */
export const LOG_PARSER_NAMES = Object.keys(LOG_PARSERS);

/** The parser of `name`; an unknown name is an error that lists the known ones. */
export function getLogParser(name: string): LogParser {
  const parser = LOG_PARSERS[name];
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
}

/** Runs the named parser on `log`, then (django) the cross-Python name normalisation. */
export function parseTestLog(parserName: string, log: string, options: ParseOptions = {}): StatusMap {
  const map = getLogParser(parserName)(log, options.harness ?? "4.1");
  if (parserName === "django" && options.normalizeDjango !== false) return normalizeDjangoNames(map);
  return map;
}
