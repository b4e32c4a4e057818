import { ParserCrash, pySplit } from "./py-text.js";
import type { HarnessVersion, StatusMap } from "./types.js";

/**
 * `parse_log_seaborn`. A line starting with FAILED marks `tok[1]` failed; else a line containing
 * `" PASSED "` whose `tok[1]` is PASSED marks `tok[0]` passed; else a line starting with PASSED
 * marks `tok[1]` passed. In v4.1 a matching line with fewer than two tokens raises in the
 * harness (the instance ends as an error): `ParserCrash` here. v5 skips such lines.
 */
export function parseSeaborn(log: string, harness: HarnessVersion): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    const relevant = line.startsWith("FAILED") || line.includes(" PASSED ") || line.startsWith("PASSED");
    if (!relevant) continue;
    const tokens = pySplit(line);
    if (tokens.length < 2) {
      if (harness === "5") continue;
      throw new ParserCrash("seaborn", line);
    }
    if (line.startsWith("FAILED")) map.set(tokens[1], "FAILED");
    else if (line.includes(" PASSED ")) {
      if (tokens[1] === "PASSED") map.set(tokens[0], "PASSED");
    } else map.set(tokens[1], "PASSED");
  }
  return map;
}
