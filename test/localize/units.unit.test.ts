import { describe, expect, it } from "vitest";
import { isSwebenchTest } from "../../src/localize/baseline.js";
import { bm25Scores, idf } from "../../src/localize/bm25.js";
import { messagePieces } from "../../src/localize/features.js";
import { issueSignals } from "../../src/localize/issue-signals.js";
import { pythonOutline } from "../../src/localize/python-defs.js";
import { fileKind } from "../../src/localize/repo-files.js";
import {
  blockVectors,
  forEachTerm,
  identifierTerms,
  termCounts,
  termId,
  termOf,
  termVector,
} from "../../src/localize/tokenize.js";

describe("issue signals", () => {
  it("reads traceback frames (Python and pytest styles), in order, one traceback after another", () => {
    const s = issueSignals(
      [
        "Title here",
        "Traceback (most recent call last):",
        '  File "/x/site-packages/pkg/a.py", line 10, in outer',
        "    inner()",
        '  File "C:\\\\proj\\\\pkg\\\\b.py", line 20, in inner',
        "ValueError: bad",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "pkg/c.py", line 3, in <module>',
        "src/pkg/d.py:45: in check",
        "pkg/lint.py:1:0: C0114 missing docstring",
      ].join("\n"),
    );
    expect(s.frames).toEqual([
      { path: "/x/site-packages/pkg/a.py", line: 10, func: "outer", traceback: 0, index: 0 },
      { path: "C:/proj/pkg/b.py", line: 20, func: "inner", traceback: 0, index: 1 },
      { path: "pkg/c.py", line: 3, func: "<module>", traceback: 1, index: 0 },
      { path: "src/pkg/d.py", line: 45, func: "check", traceback: 1, index: 1 },
    ]);
    // "bad" is too short to search for
    expect(s.messages).toEqual([]);
    expect(s.title).toBe("Title here");
  });

  it("tells identifiers of the title, backticks and code from prose; finds paths and dotted names", () => {
    const s = issueSignals(
      "`Model.fit` fails in sklearn_thing\n\nIn pkg/sub/mod.py the call\n```python\nfrom pkg.sub.mod import helper_fn\nhelper_fn(x)\n```\nbreaks when snake_case_word is used.",
    );
    // the title's backticked span counts once as title, once as backticks
    expect(s.identifiers.get("fit")).toEqual({ count: 2, title: true, backticked: true, code: false });
    expect(s.identifiers.get("helper_fn")).toEqual({ count: 2, title: false, backticked: false, code: true });
    expect(s.identifiers.get("snake_case_word")).toEqual({
      count: 1,
      title: false,
      backticked: false,
      code: false,
    });
    expect(s.paths).toEqual(["pkg/sub/mod.py"]);
    expect(s.dotted).toEqual(["pkg.sub.mod", "Model.fit"]);
  });

  it("reads exception messages and the literal pieces worth searching for", () => {
    const s = issueSignals(
      "x\nValueError: Unrecognized QDP line: read serr 1 2\nraise TypeError('cannot merge %s with %s' % (a, b))",
    );
    expect(s.messages).toEqual(["Unrecognized QDP line: read serr 1 2", "cannot merge %s with %s"]);
    expect(messagePieces("Unrecognized QDP line: read serr 1 2")).toEqual([
      "Unrecognized QDP line: read serr",
    ]);
    expect(messagePieces("Invalid value 'abc' for option <Foo at 0x1>: expected an int")).toEqual([
      "Invalid value",
      "expected an int",
    ]);
  });
});

describe("tokenizer and BM25", () => {
  it("splits identifiers into their whole form and parts, without stop words", () => {
    expect(identifierTerms("separability_matrix")).toEqual(["separability_matrix", "separability", "matrix"]);
    expect(identifierTerms("CompoundModel")).toEqual(["compoundmodel", "compound", "model"]);
    expect(identifierTerms("HTTPResponse")).toEqual(["httpresponse", "http", "response"]);
    expect(identifierTerms("self")).toEqual([]);
    expect(identifierTerms("x")).toEqual([]);
    const counts = termCounts("def parse(self): return parse_header(self.header)");
    expect(counts.get(termId("parse"))).toBe(2);
    expect(counts.get(termId("header"))).toBe(2);
    expect(counts.get(termId("parse_header"))).toBe(1);
  });

  it("reads identifiers around digits, punctuation and non-ASCII letters, and cuts a text into blocks of lines", () => {
    const ids = (text: string) => {
      const out: string[] = [];
      forEachTerm(text, (id) => out.push(termOf(id)));
      return out;
    };
    expect(ids("2fast x2y café_au_lait naïve.rows\tget-item")).toEqual([
      "fast",
      "x2y",
      "caf",
      "au_lait",
      "au",
      "lait",
      "na",
      "ve",
      "rows",
      "get",
      "item",
    ]);
    // `word7` gives `word7` and `word`, so three terms a line
    const lines = Array.from({ length: 65 }, (_, i) => `word${i} shared`);
    const blocks = blockVectors(lines.join("\n"), 30);
    expect(blocks.map((b) => b.length)).toEqual([90, 90, 15]);
    expect(blocks[1]).toEqual(termVector(lines.slice(30, 60).join("\n")));
    expect(blockVectors("", 30)).toEqual([termVector("")]);
    // 30 lines and a final newline: a second, empty block
    expect(blockVectors(`${lines.slice(0, 30).join("\n")}\n`, 30).map((b) => b.length)).toEqual([90, 0]);
  });

  it("scores with Lucene's BM25 formula", () => {
    const docs = [termVector("alpha beta beta"), termVector("beta gamma"), termVector("delta")];
    const a = termId("alpha");
    const b = termId("beta");
    const s = bm25Scores(
      docs,
      new Map([
        [a, 1],
        [b, 1],
      ]),
      { k1: 1.2, b: 0.75 },
    );
    const avg = 6 / 3;
    const part = (tf: number, len: number, df: number) =>
      (idf(3, df) * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    expect(s[0]).toBeCloseTo(part(1, 3, 1) + part(2, 3, 2), 12);
    expect(s[1]).toBeCloseTo(part(1, 2, 2), 12);
    expect(s[2]).toBe(0);
    expect(idf(3, 1)).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 12);
  });
});

describe("files and definitions", () => {
  it("classifies files: sources, tests, docs (with examples and benchmarks), other", () => {
    expect(fileKind("src/pkg/mod.py")).toBe("source");
    expect(fileKind("pkg/tests/helpers.py")).toBe("test");
    expect(fileKind("testing/python/collect.py")).toBe("test");
    expect(fileKind("pkg/test_mod.py")).toBe("test");
    expect(fileKind("conftest.py")).toBe("test");
    expect(fileKind("docs/conf.py")).toBe("doc");
    expect(fileKind("examples/demo.py")).toBe("doc");
    expect(fileKind("README.rst")).toBe("doc");
    expect(fileKind("setup.cfg")).toBe("other");
    expect(isSwebenchTest("sympy/testing/runtests.py")).toBe(true);
    expect(isSwebenchTest("src/_pytest/python.py")).toBe(false);
  });

  it("reads classes, methods, decorated and conditional definitions with their lines, and imports", async () => {
    const outline = await pythonOutline(
      [
        "import os.path as osp",
        "from ..core import engine, run as go",
        "LIMIT: int = 3",
        "class Parser(Base):",
        "    mode = 'strict'",
        "    @property",
        "    def header(self):",
        "        def local_helper():",
        "            pass",
        "        return 1",
        "try:",
        "    def fast(): pass",
        "except ImportError:",
        "    def fast(): pass",
      ].join("\n"),
    );
    expect(outline?.defs.map((d) => [d.qualname, d.kind, d.line, d.endLine, d.local])).toEqual([
      ["LIMIT", "variable", 3, 3, false],
      ["Parser", "class", 4, 10, false],
      ["Parser.mode", "variable", 5, 5, false],
      ["Parser.header", "function", 6, 10, false],
      ["Parser.header.local_helper", "function", 8, 9, true],
      ["fast", "function", 12, 12, false],
      ["fast", "function", 14, 14, false],
    ]);
    expect(outline?.imports).toEqual([
      { module: "os.path", level: 0, names: [] },
      { module: "core", level: 2, names: ["engine", "run"] },
    ]);
  });
});
