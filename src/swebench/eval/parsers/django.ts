import { ParserCrash, PY_WS_CLASS, pyLstrip, pySplit, pyStrip } from "./py-text.js";
import type { StatusMap } from "./types.js";

const PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"];
const SITES_MIGRATION = "Applying sites.0002_alter_domain_unique...test_no_migrations";

// The harness's three multi-line rescue patterns (re.MULTILINE over the whole log), written
// with Python's meaning of ^ $ . and \s: only "\n" ends a line, \s is Python whitespace.
const S = `[${PY_WS_CLASS}]`;
const BOL = "(?:^|(?<=\\n))";
const EOL = "(?=\\n|$)";
const RESCUES = [
  new RegExp(
    `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${EOL}`,
    "g",
  ),
  new RegExp(`${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Internal Server Error: \\/([^\\n]*)\\/\\nok${EOL}`, "g"),
  new RegExp(
    `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${EOL}`,
    "g",
  ),
];

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
  for (const pattern of RESCUES) {
    for (const m of log.matchAll(pattern)) map.set(m[1], "PASSED");
  }
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
