import { pySplit } from "./py-text.js";
import { type HarnessVersion, type StatusMap, startsWithStatus } from "./types.js";

/** v5 ignores pytest's `SKIPPED [N] path:line: reason` summary lines (v4.1 stores them under `[N]`). */
export function isSkipSummary(tokens: string[]): boolean {
  return tokens[0] === "SKIPPED" && /^\[\d+\]/.test(tokens[1] ?? "");
}

/**
 * Reads one line of pytest's `-rA` short summary the way the harness's `parse_log_pytest` does:
 * a line starting with a status word, `" - "` turned into `" "` on FAILED lines, then the first
 * token is the status and the second the test name. Returns undefined for lines it skips.
 */
export function pytestLine(line: string, harness: HarnessVersion): [string, string] | undefined {
  if (!startsWithStatus(line)) return undefined;
  const text = line.startsWith("FAILED") ? line.replaceAll(" - ", " ") : line;
  const tokens = pySplit(text);
  if (tokens.length <= 1) return undefined;
  if (harness === "5" && isSkipSummary(tokens)) return undefined;
  return [tokens[1], tokens[0]];
}

/** `parse_log_pytest`: flask, pytest, xarray and the dev-split pytest repositories. */
export function parsePytest(log: string, harness: HarnessVersion): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    const hit = pytestLine(line, harness);
    if (hit) map.set(hit[0], hit[1]);
  }
  return map;
}

/**
 * The name rewrite of `parse_log_pytest_options`: `main[option]`, where an option that is an
 * absolute path (starts with `/` but not `//`, no `*`) is cut to `/` + its last segment. Text
 * after the last `]` is dropped, as the harness's `re.search(r"(.*?)\[(.*)\]", name)` does: its
 * lazy `(.*?)` stops at the first `[`, its greedy `(.*)` at the last `]`. Found with indexOf (the
 * regular expression, tried from every position, was quadratic on a name with `[` and no `]`); a
 * name is one token of a line, so it holds no line break for `.` to stop at.
 */
export function normalizeOptionName(name: string): string {
  const open = name.indexOf("[");
  const close = name.lastIndexOf("]");
  if (open < 0 || close < open) return name;
  let option = name.slice(open + 1, close);
  if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*")) {
    option = `/${option.split("/").at(-1)}`;
  }
  return `${name.slice(0, open)}[${option}]`;
}

/** `parse_log_pytest_options`: requests, pylint, pydicom. */
export function parsePytestOptions(log: string, harness: HarnessVersion): StatusMap {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    const hit = pytestLine(line, harness);
    if (hit) map.set(normalizeOptionName(hit[0]), hit[1]);
  }
  return map;
}

/** `parse_log_matplotlib`: pytest after `MouseButton.LEFT` -> `1` and `MouseButton.RIGHT` -> `3`. */
export function parseMatplotlib(log: string, harness: HarnessVersion): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of log.split("\n")) {
    const line = raw.replaceAll("MouseButton.LEFT", "1").replaceAll("MouseButton.RIGHT", "3");
    const hit = pytestLine(line, harness);
    if (hit) map.set(hit[0], hit[1]);
  }
  return map;
}
