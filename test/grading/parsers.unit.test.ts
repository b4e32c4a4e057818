import { describe, expect, it } from "vitest";
import { normalizeDjangoNames, ParserCrash, parseTestLog } from "../../src/grading/parsers/index.js";
import { pySplit, pyStrip } from "../../src/grading/parsers/py-text.js";

const obj = (m: Map<string, string>) => Object.fromEntries(m);
const parse = (parser: string, log: string, harness: "4.1" | "5" = "4.1") =>
  obj(parseTestLog(parser, log, { harness }));

describe("Python text semantics", () => {
  it("splits and strips on Python's whitespace, not JavaScript's", () => {
    expect(pySplit("  a\x1cb\u00a0c\x85d\ufeffe  ")).toEqual(["a", "b", "c", "d\ufeffe"]);
    expect(pySplit("")).toEqual([]);
    expect(pyStrip("\x1f test_x ok \x85")).toBe("test_x ok");
    expect(pyStrip("\ufefftest_x")).toBe("\ufefftest_x");
  });
});

describe("pytest family", () => {
  it("pytest: summary lines, FAILED ' - ' joins, the first token as status, one-token lines skipped", () => {
    const log = [
      "PASSED tests/a.py::test_1",
      "FAILED tests/a.py::test_2 - AssertionError: x - y",
      "FAILED",
      "SKIPPED [1] tests/a.py:9: no network",
      "XFAIL tests/a.py::test_3 - reason",
      "ERROR tests/a.py::test_4",
      "PASSEDx tests/a.py::test_5",
      "  PASSED tests/a.py::indented",
      "tests/a.py::test_6 PASSED",
    ].join("\n");
    expect(parse("pytest", log)).toEqual({
      "tests/a.py::test_1": "PASSED",
      "tests/a.py::test_2": "FAILED",
      "[1]": "SKIPPED",
      "tests/a.py::test_3": "XFAIL",
      "tests/a.py::test_4": "ERROR",
      "tests/a.py::test_5": "PASSEDx",
    });
    // v5 drops the SKIPPED [N] summary line.
    expect(parse("pytest", log, "5")["[1]"]).toBeUndefined();
  });

  it("pytest_options: absolute-path options cut to their last segment, text after ']' dropped", () => {
    const log = [
      "PASSED tests/t.py::test_a[/usr/lib/x/file.txt]",
      "PASSED tests/t.py::test_b[//net/share]",
      "PASSED tests/t.py::test_c[/a/*/b]",
      "FAILED tests/t.py::test_d[x]tail - boom",
      "PASSED tests/t.py::test_e",
    ].join("\n");
    expect(parse("pytest_options", log)).toEqual({
      "tests/t.py::test_a[/file.txt]": "PASSED",
      "tests/t.py::test_b[//net/share]": "PASSED",
      "tests/t.py::test_c[/a/*/b]": "PASSED",
      "tests/t.py::test_d[x]": "FAILED",
      "tests/t.py::test_e": "PASSED",
    });
  });

  it("pytest_v2: colour codes and control characters removed, verbose 'name STATUS' lines read", () => {
    const log = [
      "\x1b[32mPASSED\x1b[0m astropy/a.py::test_1",
      "astropy/a.py::test_2 PASSED",
      "astropy/a.py::test_3 some words FAILED",
      "FAILED astropy/a.py::test_4 - x - y",
      "PASSED\tastropy/a.py::tab_removed",
      "[\u0663m",
    ].join("\n");
    expect(parse("pytest_v2", log)).toEqual({
      "astropy/a.py::test_1": "PASSED",
      "astropy/a.py::test_2": "PASSED",
      "astropy/a.py::test_3": "some",
      "astropy/a.py::test_4": "FAILED",
    });
    expect(parse("pytest_v2", log, "5")).toEqual({
      "astropy/a.py::test_1": "PASSED",
      "astropy/a.py::test_2": "PASSED",
      "astropy/a.py::test_3 some words": "FAILED",
      "astropy/a.py::test_4": "FAILED",
    });
  });

  it("matplotlib: MouseButton names become numbers", () => {
    expect(parse("matplotlib", "PASSED lib/t.py::test_x[MouseButton.LEFT-MouseButton.RIGHT]")).toEqual({
      "lib/t.py::test_x[1-3]": "PASSED",
    });
  });

  it("seaborn: its three line forms; a short line crashes in v4.1 as the harness does, v5 skips it", () => {
    const log = [
      "FAILED tests/t.py::a - x",
      "tests/t.py::b PASSED [ 10%]",
      "x y PASSED z",
      "PASSED tests/t.py::c",
    ].join("\n");
    expect(parse("seaborn", log)).toEqual({
      "tests/t.py::a": "FAILED",
      "tests/t.py::b": "PASSED",
      "tests/t.py::c": "PASSED",
    });
    expect(() => parse("seaborn", `${log}\n PASSED `)).toThrow(ParserCrash);
    expect(parse("seaborn", `${log}\n PASSED `, "5")).toEqual(parse("seaborn", log));
  });
});

describe("sympy", () => {
  it("traceback headers give path-qualified FAILED keys; the last test of a file is never read", () => {
    const log = [
      "sympy/x/tests/test_y.py[3] ",
      "test_a ok",
      "test_b F",
      "test_c E",
      "test_d ok                                                          [OK]",
      "________________________________ sympy/x/tests/test_y.py:test_b ________________________________",
    ].join("\n");
    expect(parse("sympy", log)).toEqual({
      "sympy/x/tests/test_y.py:test_b": "FAILED",
      test_a: "PASSED",
      test_b: "FAILED",
      test_c: "ERROR",
    });
  });
});

describe("django", () => {
  it("reads ok/skipped/FAIL/ERROR lines, FAIL:/ERROR: headers, prev_test + ok, and the rescue patterns", () => {
    const log = [
      "test_a (app.tests.T) ... ok",
      "test_b (app.tests.T) ... skipped 'no db'",
      "test_c (app.tests.T) ... FAIL",
      "test_d (app.tests.T) ... ERROR",
      "test_e (app.tests.T) ... some output",
      "more output",
      "ok",
      "Docstring of a test. ... OK",
      "test_f (app.tests.T) ... Testing against Django installed in '/x'",
      "with more lines (0 silenced).",
      "ok",
      "test_g (app.tests.T) ... System check identified no issues (0 silenced)",
      "ok",
      "Applying sites.0002_alter_domain_unique...test_no_migrations (m.T) ... ok",
      "FAIL: test_h (app.tests.T)",
      "ERROR: test_i (app.tests.T.test_i)",
      "--version is equivalent to version",
    ].join("\n");
    expect(obj(parseTestLog("django", log, { normalizeDjango: false }))).toEqual({
      "test_a (app.tests.T)": "PASSED",
      "test_b (app.tests.T)": "SKIPPED",
      "test_c (app.tests.T)": "FAILED",
      "test_d (app.tests.T)": "ERROR",
      "test_e (app.tests.T)": "PASSED",
      "Docstring of a test.": "PASSED",
      "test_f (app.tests.T)": "PASSED",
      "test_g (app.tests.T)": "PASSED",
      "test_no_migrations (m.T)": "PASSED",
      test_h: "FAILED",
      test_i: "ERROR",
      "--version is equivalent to version": "PASSED",
    });
    expect(() => parseTestLog("django", "FAIL:")).toThrow(ParserCrash);
  });

  it("normalises names across Python versions without changing names that exist", () => {
    const m = normalizeDjangoNames(
      new Map([
        ["test_x (app.tests.T.test_x)", "PASSED"],
        ["test_y (app.tests.T)", "FAILED"],
        ["test_z (app.tests.T)", "PASSED"],
        ["test_z (app.tests.T.test_z)", "FAILED"],
      ]),
    );
    expect(m.get("test_x (app.tests.T)")).toBe("PASSED");
    expect(m.get("test_y (app.tests.T.test_y)")).toBe("FAILED");
    expect(m.get("test_z (app.tests.T)")).toBe("PASSED");
    expect(m.get("test_z (app.tests.T.test_z)")).toBe("FAILED");
    expect(parseTestLog("django", "test_x (a.T.test_x) ... ok").get("test_x (a.T)")).toBe("PASSED");
  });
});

it("an unknown parser name is an error listing the known ones", () => {
  expect(() => parseTestLog("chart_js", "")).toThrow(
    'unknown log parser "chart_js"; known parsers: pytest, pytest_options, pytest_v2, matplotlib, seaborn, sympy, django, ' +
      "gotest, cargo, phpunit, redis, jq, doctest, micropython_test, googletest, maven, ant, gradle_custom, minitest, " +
      "cucumber, ruby_unit, rspec_transformed_json, jekyll, jest, jest_json, vitest, karma, tap, immutable_js, highlightjs, " +
      "marked, carbon, react_pdf, grommet",
  );
});
