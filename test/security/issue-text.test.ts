import { describe, expect, it } from "vitest";
import { issueSignals, MAX_ISSUE_CHARS } from "../../src/localize/issue-signals.js";
import { paths, py, ranked } from "../localize/support.js";

/**
 * An issue text made to be slow (a line of 300,000 backticks: the fence pattern of the old scan
 * backtracked over it for minutes, and the process ignored SIGTERM meanwhile) is read in one pass,
 * and only its first MAX_ISSUE_CHARS characters are read at all. The assertions are on the result;
 * the old code does not get there within the test's time limit.
 */

const TICKS = "`".repeat(300_000);

describe("a hostile issue text", () => {
  it("a line of 300,000 backticks after a real report: the report's signals, nothing from the backticks", () => {
    const issue =
      "parse_header fails on `Content-Type`\n\n```python\nfrom pkg.http import parse_header\nparse_header(raw)\n```\n" +
      // no line break after them: the old pattern tried every backtick as a fence and backtracked
      TICKS;
    const code = (count: number) => ({ count, title: false, backticked: false, code: true });
    expect(issueSignals(issue)).toEqual({
      frames: [],
      paths: [],
      dotted: ["pkg.http"],
      identifiers: new Map([
        ["parse_header", { count: 4, title: true, backticked: false, code: true }],
        ["fails", { count: 2, title: true, backticked: false, code: false }],
        ["Content", { count: 2, title: true, backticked: true, code: false }],
        ["Type", { count: 2, title: true, backticked: true, code: false }],
        ["from", code(1)],
        ["pkg", code(1)],
        ["http", code(1)],
        ["import", code(1)],
        ["raw", code(1)],
      ]),
      messages: [],
      title: "parse_header fails on `Content-Type`",
      optionNames: [],
    });
  });

  it("backticks and fences past the cap are not read; the whole ranking still answers", async () => {
    const issue = `${" ".repeat(MAX_ISSUE_CHARS)}never_seen_name\n\`\`\`\n${TICKS}`;
    expect(issueSignals(issue)).toEqual({
      frames: [],
      paths: [],
      dotted: [],
      identifiers: new Map(),
      messages: [],
      title: "",
      optionNames: [],
    });
    const r = await ranked(
      { "pkg/__init__.py": "", "pkg/http.py": py("def parse_header(raw):\n    return raw\n", "http") },
      `parse_header is wrong in pkg/http.py\n\n${TICKS}\n${TICKS}`,
    );
    expect(paths(r.files)[0]).toBe("pkg/http.py");
  });
});
