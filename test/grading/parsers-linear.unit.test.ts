import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLiveParserOutput } from "../../src/grading/live.js";
import { rescuedNames } from "../../src/grading/parsers/django.js";
import { LOG_PARSER_NAMES, parseTestLog } from "../../src/grading/parsers/index.js";
import {
  dropTrailingInFile,
  GO_TEST_LINE,
  GOOGLETEST_LINE,
  GRADLE_FULL_LINE,
  type LineMatcher,
  MINITEST_LINE,
  PHPUNIT_SUITE_LINE,
} from "../../src/grading/parsers/line-shapes.js";
import { pyRe } from "../../src/grading/parsers/py-regex.js";
import { PY_WS_CLASS, pyLstrip, pyRstrip, pyStrip } from "../../src/grading/parsers/py-text.js";
import { normalizeOptionName } from "../../src/grading/parsers/pytest.js";
import { tracebackHeaderNames } from "../../src/grading/parsers/sympy.js";
import { FIXTURES } from "../support/data.js";

/** The instance ids the two parsers that pick a format by id are run with. */
const CONTEXT_IDS: Record<string, string[]> = {
  jekyll: ["jekyll__jekyll-9141", "jekyll__jekyll-8761"],
  immutable_js: ["immutable-js__immutable-js-2005", "immutable-js__immutable-js-2006"],
};

function parse(parser: string, log: string, instanceId?: string): string {
  try {
    return JSON.stringify([...parseTestLog(parser, log, { context: { instanceId } }).entries()]);
  } catch (err) {
    return `throws ${(err as Error).message.slice(0, 200)}`;
  }
}

/** sha256 (16 hex digits) of a parser's results on `files`, named relative to test/fixtures. */
function digest(parser: string, files: string[]): string {
  const hash = createHash("sha256");
  for (const f of files) {
    const log = readFileSync(f, "utf8");
    for (const id of CONTEXT_IDS[parser] ?? [undefined])
      hash.update(`${f.slice(FIXTURES.length + 1)}\0${id}\0${parse(parser, log, id)}\0`);
  }
  return hash.digest("hex").slice(0, 16);
}

/** A deterministic pseudo-random source (the same strings every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** `count` strings of up to `max` pieces drawn from `pieces`. */
function samples(pieces: string[], max: number, count: number, seed: number): string[] {
  const r = random(seed);
  return Array.from({ length: count }, () => {
    let s = "";
    const n = Math.floor(r() * (max + 1));
    for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)];
    return s;
  });
}

/** Milliseconds `f` takes. */
function millis(f: () => unknown): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

// Each hand-written matcher against the harness pattern it replaces, as the regular expression
// (through pyRe, which gives Python's meaning) that the parsers used before.
describe("linear matchers agree with the harness patterns they replace", () => {
  const cases: Array<{ name: string; shape: LineMatcher; pattern: string; pieces: string[] }> = [
    {
      name: "gotest",
      shape: GO_TEST_LINE,
      pattern: "^--- (PASS|FAIL|SKIP): (.+) \\((.+)\\)$",
      pieces: ["--- PASS: ", "--- FAIL: ", "--- ", "PASS", ": ", " (", "(", ")", " ", "a", "\r"],
    },
    {
      name: "phpunit suite",
      shape: PHPUNIT_SUITE_LINE,
      pattern: "^(\\w.+) \\(.+\\)$",
      pieces: [" (", "(", ")", " ", "a", "é", "\u{1d400}", "-", "\\"],
    },
    {
      name: "gradle_custom",
      shape: GRADLE_FULL_LINE,
      pattern: "^([^>].+)\\s+(PASSED|FAILED)$",
      pieces: ["PASSED", "FAILED", " ", "\t", ">", "a", "\u{1d400}", "\x85", "PASS"],
    },
    {
      name: "minitest",
      shape: MINITEST_LINE,
      pattern: "^(.+)\\. .*=.*(\\.|F|E).*$",
      pieces: [". ", ".", " ", "=", "F", "E", "a", "\r"],
    },
    {
      name: "googletest",
      shape: GOOGLETEST_LINE,
      pattern: "^.*\\[\\s*(OK|FAILED)\\s*\\]\\s(.*)\\s\\(.*\\)$",
      pieces: ["[", "]", " ", "OK", "FAILED", " (", "(", ")", "a", "\t", "[ OK ] "],
    },
  ];
  for (const { name, shape, pattern, pieces } of cases) {
    it(`${name}: ${pattern}`, () => {
      const re = pyRe(pattern);
      for (const line of samples(pieces, 12, 20_000, name.length)) {
        const want = re.match(line);
        const got = shape.match(line);
        expect(got && [...got], JSON.stringify(line)).toEqual(want && [...want]);
      }
    });
  }

  it("redis: re.sub(r'\\s+in\\s+\\S+$', '', name)", () => {
    const re = pyRe("\\s+in\\s+\\S+$");
    for (const name of samples(["in", " ", "\t", "a", "i", "n", "x.tcl"], 10, 20_000, 7))
      expect(dropTrailingInFile(name), JSON.stringify(name)).toBe(re.sub("", name));
  });

  it("sympy: re.findall(r'(_*) (.*)\\.py:(.*) (_*)', log)", () => {
    const re = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;
    for (const log of samples(["_", " ", ".py:", "a", "\n", ".", "py", ":", "\r"], 14, 20_000, 3))
      expect(tracebackHeaderNames(log), JSON.stringify(log)).toEqual(
        [...log.matchAll(re)].map((m) => `${m[2]}.py:${m[3]}`),
      );
  });

  it("pytest_options: re.search(r'(.*?)\\[(.*)\\]', name)", () => {
    const re = /([^\n]*?)\[([^\n]*)\]/;
    const before = (name: string) => {
      const m = re.exec(name);
      if (!m) return name;
      let option = m[2];
      if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*"))
        option = `/${option.split("/").at(-1)}`;
      return `${m[1]}[${option}]`;
    };
    for (const name of samples(["[", "]", "/", "a", "*", "//"], 12, 20_000, 5))
      expect(normalizeOptionName(name), JSON.stringify(name)).toBe(before(name));
  });

  it("strip, lstrip and rstrip: Python whitespace at the ends, as the regular expressions removed it", () => {
    const leading = new RegExp(`^[${PY_WS_CLASS}]+`);
    const trailing = new RegExp(`[${PY_WS_CLASS}]+$`);
    const ws = [..."\t\n\v\f\r\x1c\x1f \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"];
    for (const s of samples([...ws, "a", "b"], 10, 20_000, 11)) {
      expect(pyStrip(s)).toBe(s.replace(leading, "").replace(trailing, ""));
      expect(pyLstrip(s)).toBe(s.replace(leading, ""));
      expect(pyRstrip(s)).toBe(s.replace(trailing, ""));
    }
  });

  it("django: the three multi-line rescue patterns, as re.finditer with MULTILINE found them", () => {
    const S = `[${PY_WS_CLASS}]`;
    const BOL = "(?:^|(?<=\\n))";
    const EOL = "(?=\\n|$)";
    const rescues = [
      `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${EOL}`,
      `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Internal Server Error: \\/([^\\n]*)\\/\\nok${EOL}`,
      `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${EOL}`,
    ].map((source) => new RegExp(source, "g"));
    const pieces = [
      "t ",
      "\n",
      " ... ",
      "...",
      " ",
      "Testing against Django installed in ",
      "x",
      " silenced).\nok",
      " silenced).",
      "Internal Server Error: /",
      "/",
      "/\nok",
      "ok",
      "System check identified no issues (0 silenced)\nok",
    ];
    for (const log of samples(pieces, 10, 20_000, 13)) {
      const want = rescues.flatMap((re) => [...log.matchAll(re)].map((m) => m[1]));
      expect(rescuedNames(log), JSON.stringify(log)).toEqual(want);
    }
  });
});

describe("Live's parser output is read in linear time", () => {
  const re = /PATCHLOOP_LIVE_PARSER_BEGIN\n([\s\S]*?)\nPATCHLOOP_LIVE_PARSER_END/;
  const shown = (r: ReturnType<typeof readLiveParserOutput>) => (r.ok ? [...r.map] : r.reason);

  it("the text between the markers is what the regular expression found", () => {
    const pieces = [
      "PATCHLOOP_LIVE_PARSER_BEGIN",
      "PATCHLOOP_LIVE_PARSER_END",
      "\n",
      "{}",
      '{"a": "PASSED"}',
      "x",
    ];
    for (const output of samples(pieces, 8, 20_000, 17)) {
      const m = re.exec(output);
      const r = readLiveParserOutput(output);
      if (!m) expect(r.ok, JSON.stringify(output)).toBe(false);
      else {
        let want: unknown;
        try {
          want = JSON.parse(m[1]);
        } catch {
          want = undefined;
        }
        if (want && typeof want === "object" && !Array.isArray(want))
          expect(r.ok, JSON.stringify(output)).toBe(true);
        else expect(r.ok, JSON.stringify(output)).toBe(false);
      }
    }
    expect(
      shown(
        readLiveParserOutput('x\nPATCHLOOP_LIVE_PARSER_BEGIN\n{"t": "PASSED"}\nPATCHLOOP_LIVE_PARSER_END\n'),
      ),
    ).toEqual([["t", "pass"]]);
  });

  it("40,000 begin markers without an end: under 2 s", () => {
    const output = "PATCHLOOP_LIVE_PARSER_BEGIN\n".repeat(40_000);
    expect(millis(() => readLiveParserOutput(output))).toBeLessThan(2000);
  });
});

describe("every log parser reads a hostile log in linear time", () => {
  const MB = 1 << 20;
  /** The start of a line that each parser's patterns look at further. */
  const PREFIXES = [
    "",
    "--- PASS: ",
    "test a ... ",
    "PASSED ",
    "FAILED a - ",
    "[ok]: ",
    "[err]: a",
    "PASS: ",
    "pass ",
    "[  OK  ] ",
    "[junit] [PASS] ",
    "a > b ",
    "-Dtest=",
    "✓ ",
    "✔ ",
    "× ",
    "[PASSED] ",
    "ok 1 ",
    "1) ",
    "PASS ",
    "FAIL ",
    "test: a:",
    "a. =",
    "a .",
    "Suite (",
    "test_a ",
    "___ a.py:",
    "a ... Testing against Django installed in ",
    "a ... Internal Server Error: /",
    "<doctest><TestCase name=",
  ];
  /** What follows the prefix: long runs of what the patterns' `.*`, `\s*` and separators look for. */
  const BODIES = [
    (n: number) => " ".repeat(n),
    (n: number) => `${" ".repeat(n)}x`,
    (n: number) => "x ".repeat(n / 2),
    (n: number) => " (".repeat(n / 2),
    (n: number) => ". =".repeat(n / 3),
    (n: number) => " - ".repeat(n / 3),
    (n: number) => "[ OK ] (".repeat(n / 8),
    (n: number) => " ... ".repeat(n / 5),
    (n: number) => "a.py: ".repeat(n / 6),
    (n: number) => "_".repeat(n),
    (n: number) => " in ".repeat(n / 4),
    (n: number) => '"a" b="'.repeat(n / 7),
  ];
  const hostile: Array<{ name: string; log: string }> = [
    { name: "one 1 MB line of spaces", log: " ".repeat(MB) },
    { name: "1 MB of Python whitespace, then x", log: `${"\t \x85\u3000".repeat(MB / 4)}x` },
    { name: "1 MB of spaces, then x", log: `${" ".repeat(MB)}x` },
    { name: "a 1 MB line of 'x ' pairs", log: "x ".repeat(MB / 2) },
    { name: "half a million short lines", log: "a\n".repeat(MB / 2) },
    { name: "short lines of spaces and a word", log: "  x  \n".repeat(MB / 6) },
    {
      name: "every prefix with every long body (8 kB lines)",
      log: PREFIXES.flatMap((p) => BODIES.map((b) => p + b(8192))).join("\n"),
    },
  ];
  for (const parser of LOG_PARSER_NAMES) {
    it(`${parser}: under 2 s on each of ${hostile.length} hostile logs`, () => {
      for (const { name, log } of hostile) {
        for (const id of CONTEXT_IDS[parser] ?? [undefined]) {
          const ms = millis(() => parse(parser, log, id));
          expect(ms, `${parser} on ${name}`).toBeLessThan(2000);
        }
      }
    });
  }
});

describe("the parsers' results on the vendored harness logs are those of the regular expressions", () => {
  /**
   * sha256 (first 16 hex digits) of each parser's results on every vendored log, taken with the
   * regular-expression parsers before they were made linear (commit 70ce219). Every parser reads
   * every log, not only its own, so the lines that are not test results are compared too.
   */
  const BEFORE: Record<string, string> = {
    pytest: "fc1221384ca9bab6",
    pytest_options: "10e8d35e7e34238c",
    pytest_v2: "a1bc60da995d7245",
    matplotlib: "fc1221384ca9bab6",
    seaborn: "a91767dffbb06bd8",
    sympy: "452d353288a1cc83",
    django: "dc5f97b314e2fc81",
    gotest: "b984c5b759717bb4",
    cargo: "e68d1211c4ca004d",
    phpunit: "03f8232471ecb456",
    redis: "f3cb799164cd3144",
    jq: "f98bb920a59e5973",
    doctest: "73a2c75c51ec7f2d",
    micropython_test: "c2e3c89e6be7d858",
    googletest: "9f1ecc6250dbbd87",
    maven: "68c309b072d2b645",
    ant: "86fef6ce0de2fb60",
    gradle_custom: "4b7928c1811ecb8e",
    minitest: "23c0dcde60751c4e",
    cucumber: "cbdac6cf432353f1",
    ruby_unit: "ef2f32d2c726c907",
    rspec_transformed_json: "4d81e9121cda932c",
    jekyll: "15a0fa94f1516261",
    jest: "50d58231426b2ce7",
    jest_json: "f753131d3baf9773",
    vitest: "fdd2e179fc889250",
    karma: "3f400df75276af1d",
    tap: "0c0de5c52546e679",
    immutable_js: "8168b186fd27df2e",
    highlightjs: "effaba10421fcfb0",
    marked: "8e76c615dd544f48",
    carbon: "9a377c240b30341b",
    react_pdf: "9a377c240b30341b",
    grommet: "d6c04e28e45196bd",
  };

  function logFiles(dir: string): string[] {
    return readdirSync(dir)
      .flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? logFiles(p) : n.endsWith(".log") ? [p] : [];
      })
      .sort();
  }
  const files = [
    ...logFiles(join(FIXTURES, "swebench", "harness-logs")),
    ...logFiles(join(FIXTURES, "logs-multilingual")),
  ];

  it("reads the 70 vendored logs", () => {
    expect(files.length).toBe(70);
    expect(Object.keys(BEFORE).sort()).toEqual([...LOG_PARSER_NAMES].sort());
  });

  for (const parser of LOG_PARSER_NAMES) {
    it(`${parser}: the same results on every vendored log`, () => {
      expect(digest(parser, files)).toBe(BEFORE[parser]);
    });
  }
});
