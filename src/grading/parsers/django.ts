import { ParserCrash, PY_WS_CLASS, pyLstrip, pySplit, pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

const PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"];
const SITES_MIGRATION = "Applying sites.0002_alter_domain_unique...test_no_migrations";

// The harness's three multi-line rescue patterns (re.MULTILINE over the whole log), written
// with Python's meaning of ^ $ . and \s: only "\n" ends a line, \s is Python whitespace.
//   ^(.*?)\s\.\.\.\sTesting against Django installed in ((?s:.*?)) silenced\)\.\nok$
//   ^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$
//   ^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$
// The first two are found from the fixed text in their middle (rescueNames); as regular
// expressions they were quadratic: the lazy `(?s:.*?)` ran to the end of the log from every line
// that names the Django installation, and the greedy `(.*)` to the end of the line from every
// `... Internal Server Error: /` in it. The third has no such part.
const S = `[${PY_WS_CLASS}]`;
const BOL = "(?:^|(?<=\\n))";
const EOL = "(?=\\n|$)";
const SYSTEM_CHECK = new RegExp(
  `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${EOL}`,
  "g",
);
const INSTALLED_IN = new RegExp(`${S}\\.\\.\\.${S}Testing against Django installed in `, "g");
const SERVER_ERROR = new RegExp(`${S}\\.\\.\\.${S}Internal Server Error: \\/`, "g");
const SILENCED = " silenced).\nok";

/** The first line break at or after a position, for positions that only grow: linear over a whole scan. */
class LineBreaks {
  private next: number;
  constructor(private readonly text: string) {
    this.next = text.indexOf("\n");
  }
  /** The index of the first "\n" at or after `at` (-1: none); `at` may not decrease between calls. */
  from(at: number): number {
    while (this.next !== -1 && this.next < at) this.next = this.text.indexOf("\n", at);
    return this.next;
  }
}

/** Whether a line ends at `at`: a "\n" there or the end of the text (the patterns' `$`). */
function lineEndsAt(text: string, at: number): boolean {
  return at === text.length || text[at] === "\n";
}

/**
 * The names (`^(.*?)`) of a rescue pattern's matches, in order, as `re.finditer` yields them.
 * `middle` finds the pattern's `\s...\s<fixed text>` (it cannot overlap itself); the name is the
 * text from the start of its line up to it, and `tail(end)` says where the rest of the pattern
 * matched from the middle's end stops (-1: it does not). At one line start the first middle whose
 * rest matches wins (the lazy `.*?`); the search then goes on after that match. Each part of the
 * text is read a bounded number of times.
 */
function rescueNames(log: string, middle: RegExp, tail: (end: number) => number): string[] {
  const names: string[] = [];
  const starts = new LineBreaks(log);
  let lineStart = 0;
  let after = 0;
  for (const m of log.matchAll(middle)) {
    // the start of the line holding m.index (a "\n" at m.index ends that line)
    for (let nl = starts.from(lineStart); nl !== -1 && nl < m.index; nl = starts.from(lineStart))
      lineStart = nl + 1;
    if (lineStart < after) continue;
    const end = tail(m.index + m[0].length);
    if (end < 0) continue;
    names.push(log.slice(lineStart, m.index));
    after = end;
  }
  return names;
}

/** The three rescue patterns' names (each pattern's matches in turn), all PASSED in the harness. */
export function rescuedNames(log: string): string[] {
  const silenced: number[] = [];
  for (let at = log.indexOf(SILENCED); at !== -1; at = log.indexOf(SILENCED, at + 1))
    if (lineEndsAt(log, at + SILENCED.length)) silenced.push(at);
  let next = 0;
  const installedIn = rescueNames(log, INSTALLED_IN, (end) => {
    while (next < silenced.length && silenced[next] < end) next++;
    return next < silenced.length ? silenced[next] + SILENCED.length : -1;
  });
  const breaks = new LineBreaks(log);
  const serverError = rescueNames(log, SERVER_ERROR, (end) => {
    const nl = breaks.from(end);
    const ok = nl > end && log[nl - 1] === "/" && log.startsWith("ok", nl + 1) && lineEndsAt(log, nl + 3);
    return ok ? nl + 3 : -1;
  });
  const systemCheck = [...log.matchAll(SYSTEM_CHECK)].map((m) => m[1]);
  return [...installedIn, ...serverError, ...systemCheck];
}

function secondToken(line: string): string {
  const tokens = pySplit(line);
  if (tokens.length < 2) throw new ParserCrash("django", line);
  return pyStrip(tokens[1]);
}

/**
 * `parse_log_django` (`runtests.py --verbosity 2`, lines `test_x (module.Class) ... ok`),
 * line by line on stripped lines, with every special case of the harness: the `prev_test`
 * carried to a later line starting with `ok`, the sites-migration line, `FAIL:`/`ERROR:`
 * headers (whose second token, the bare method name, is the key), the `--version` test and the
 * three multi-line patterns. Names are what unittest printed; see `normalizeDjangoNames`.
 */
export function parseDjango(log: string): StatusMap {
  const map: StatusMap = new Map();
  let prevTest: string | undefined;
  for (const raw of log.split("\n")) {
    let line = pyStrip(raw);
    if (line.includes("--version is equivalent to version"))
      map.set("--version is equivalent to version", "PASSED");
    if (line.includes(" ... ")) prevTest = line.split(" ... ")[0];
    for (const suffix of PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      if (line.startsWith(SITES_MIGRATION)) line = pyStrip(line.slice(line.indexOf("...") + 3));
      const cut = line.lastIndexOf(suffix);
      map.set(cut < 0 ? line : line.slice(0, cut), "PASSED");
      break;
    }
    if (line.includes(" ... skipped")) map.set(line.split(" ... skipped")[0], "SKIPPED");
    if (line.endsWith(" ... FAIL")) map.set(line.split(" ... FAIL")[0], "FAILED");
    if (line.startsWith("FAIL:")) map.set(secondToken(line), "FAILED");
    if (line.endsWith(" ... ERROR")) map.set(line.split(" ... ERROR")[0], "ERROR");
    if (line.startsWith("ERROR:")) map.set(secondToken(line), "ERROR");
    if (pyLstrip(line).startsWith("ok") && prevTest !== undefined) map.set(prevTest, "PASSED");
  }
  for (const name of rescuedNames(log)) map.set(name, "PASSED");
  return map;
}

// Python >= 3.11 unittest prints `test_x (module.Class.test_x)`; older ones `test_x (module.Class)`.
const NEW_STYLE = /^(\w+) \(([\w.]+)\.(\w+)\)$/;
const OLD_STYLE = /^(\w+) \(([\w.]+)\)$/;

/**
 * Makes django test names comparable across Python versions: for every `test_x (mod.Class.test_x)`
 * key the older `test_x (mod.Class)` is added, and for every older key the newer one, each only
 * where that name is not already in the map. A log from the harness's own Python grades as
 * before (the added names are of the other form, not the dataset's), while a log from another
 * Python finds the names the dataset was made with.
 */
export function normalizeDjangoNames(map: StatusMap): StatusMap {
  const out: StatusMap = new Map(map);
  for (const [name, status] of map) {
    const n = NEW_STYLE.exec(name);
    if (n && n[1] === n[3]) {
      const old = `${n[1]} (${n[2]})`;
      if (!out.has(old)) out.set(old, status);
      continue;
    }
    const o = OLD_STYLE.exec(name);
    if (o) {
      const newer = `${o[1]} (${o[2]}.${o[1]})`;
      if (!out.has(newer)) out.set(newer, status);
    }
  }
  return out;
}
