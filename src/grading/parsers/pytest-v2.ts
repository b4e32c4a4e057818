import { beforeFirst, pySplit } from "./py-text.js";
import { isSkipSummary } from "./pytest.js";
import { endsWithStatus, type HarnessVersion, type StatusMap, startsWithStatus } from "./types.js";

// `re.sub(r"\[(\d+)m", "", line)`: Python's \d is any Unicode decimal digit.
const COLOR_CODE = /\[(\p{Nd}+)m/gu;
// `str.maketrans("", "", chr(1)..chr(31))`: every control character but NUL, tab included.
const CONTROL = /[\x01-\x1f]/g;

/** The line cleaning of `parse_log_pytest_v2`: colour codes' `[NNm` and control characters removed. */
export function cleanV2Line(line: string): string {
  return line.replace(COLOR_CODE, "").replace(CONTROL, "");
}

/**
 * `parse_log_pytest_v2` (astropy, scikit-learn, sphinx). v4.1: a line starting with a status is
 * read like pytest's summary; otherwise a line ending with a status gives `tok[0] = tok[1]`
 * (verbose `path::test PASSED` lines). v5: a FAILED line is cut at its first `" - "` and the name
 * is all remaining tokens joined by one space; the trailing form names all but the last token.
 */
export function parsePytestV2(log: string, harness: HarnessVersion): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of log.split("\n")) {
    const line = cleanV2Line(raw);
    if (startsWithStatus(line)) {
      if (harness === "5") {
        const tokens = pySplit(line.startsWith("FAILED") ? beforeFirst(line, " - ") : line);
        if (tokens.length >= 2 && !isSkipSummary(tokens)) map.set(tokens.slice(1).join(" "), tokens[0]);
      } else {
        const tokens = pySplit(line.startsWith("FAILED") ? line.replaceAll(" - ", " ") : line);
        if (tokens.length >= 2) map.set(tokens[1], tokens[0]);
      }
    } else if (endsWithStatus(line)) {
      const tokens = pySplit(line);
      if (tokens.length < 2) continue;
      if (harness === "5") map.set(tokens.slice(0, -1).join(" "), tokens[tokens.length - 1]);
      else map.set(tokens[0], tokens[1]);
    }
  }
  return map;
}
