import type { LineMatcher } from "./line-shapes.js";
import { pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

/**
 * The shape most of the harness's non-Python parsers share: each line (stripped, unless `raw`) is
 * matched against one pattern from its start; the pattern's `name` group and `status` group give
 * the test and a word that `statuses` maps to a status (a word it lacks records nothing). Later
 * lines for the same test overwrite earlier ones, as a Python dict assignment does.
 */
export function parseLines(
  log: string,
  pattern: LineMatcher,
  groups: { name: number; status: number },
  statuses: Readonly<Record<string, string>>,
  options: { raw?: boolean; rename?: (name: string, status: string) => string } = {},
): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    const m = pattern.match(options.raw ? line : pyStrip(line));
    if (!m) continue;
    const word = m[groups.status] ?? "";
    const status = statuses[word];
    if (status === undefined) continue;
    const name = m[groups.name] ?? "";
    map.set(options.rename ? options.rename(name, status) : name, status);
  }
  return map;
}
