import { describe, expect, test } from "vitest";
import { isEditToolCommand, parseEditToolCommand } from "../../src/tools/edit-tool/parse.js";
import { EDIT_TOOL_FORMS, EDIT_TOOL_USAGE } from "../../src/tools/edit-tool/usage.js";

const block = (...lines: string[]) => lines.join("\n");
const ok = (text: string) => {
  const parsed = parseEditToolCommand(text);
  if (!parsed.ok) throw new Error(`expected a command, got: ${parsed.error}`);
  return parsed.command;
};
const fails = (text: string) => {
  const parsed = parseEditToolCommand(text);
  if (parsed.ok) throw new Error(`expected an error, got ${JSON.stringify(parsed.command)}`);
  return parsed.error;
};
const withForm = (message: string, form: keyof typeof EDIT_TOOL_FORMS) =>
  `edit-tool: ${message}\nExpected form:\n${EDIT_TOOL_FORMS[form]}`;
const withUsage = (message: string) => `edit-tool: ${message}\nUsage:\n${EDIT_TOOL_USAGE}`;

describe("isEditToolCommand", () => {
  test("claims blocks with an edit-tool line, also after ; && | (", () => {
    for (const text of [
      "edit-tool view --file /r/a.py",
      "\n  edit-tool undo --file /r/a.py",
      "cd /r && edit-tool view --file a.py",
      "ls\nedit-tool view --file /r/a.py",
      "(edit-tool view --file /r)",
      "edit-tool",
    ]) {
      expect(isEditToolCommand(text), text).toBe(true);
    }
  });

  test("leaves ordinary commands that merely mention it", () => {
    for (const text of [
      "grep -rn edit-tool src/",
      "echo 'use edit-tool'",
      "edit-toolbox run",
      "./my-edit-tool x",
      "",
    ]) {
      expect(isEditToolCommand(text), text).toBe(false);
    }
  });
});

describe("parseEditToolCommand: the forms", () => {
  test("str_replace: the texts are the lines between the markers, joined with \\n", () => {
    expect(
      ok(
        block(
          "edit-tool str_replace --file /r/a.py << 'PATCH'",
          "---OLD---",
          "    a = 1",
          "    b = 2",
          "---NEW---",
          "    a = 3",
          "PATCH",
        ),
      ),
    ).toEqual({
      kind: "str_replace",
      path: "/r/a.py",
      oldText: "    a = 1\n    b = 2",
      newText: "    a = 3",
    });
  });

  test("str_replace: an empty line before a marker is a final newline; nothing between markers is empty text", () => {
    expect(
      ok(block("edit-tool str_replace --file /r/a << EOF", "---OLD---", "x", "", "---NEW---", "EOF")),
    ).toEqual({
      kind: "str_replace",
      path: "/r/a",
      oldText: "x\n",
      newText: "",
    });
  });

  test("any terminator word, quoted or not, with or without a space after <<", () => {
    for (const head of [`<< "END"`, "<< END", "<<'END'", "<<END", "<< 'END'  "]) {
      expect(ok(block(`edit-tool create --file /r/n.txt ${head}`, "hi", "END")), head).toEqual({
        kind: "create",
        path: "/r/n.txt",
        text: "hi\n",
      });
    }
  });

  test("paths with spaces (quoted or escaped), --file=PATH, blank lines around the block", () => {
    expect(ok("edit-tool view --file '/r/my dir/a b.py'")).toEqual({
      kind: "view",
      path: "/r/my dir/a b.py",
    });
    expect(ok('edit-tool view --file "/r/my dir/a.py"')).toEqual({ kind: "view", path: "/r/my dir/a.py" });
    expect(ok("edit-tool view --file /r/my\\ dir/a.py")).toEqual({ kind: "view", path: "/r/my dir/a.py" });
    expect(ok("\n\nedit-tool undo --file=/r/a.py\n\n")).toEqual({ kind: "undo", path: "/r/a.py" });
  });

  test("create ends the file with a newline; an empty heredoc makes an empty file", () => {
    expect(ok(block("edit-tool create --file /r/n.py << 'P'", "a", "", "b", "P"))).toEqual({
      kind: "create",
      path: "/r/n.py",
      text: "a\n\nb\n",
    });
    expect(ok(block("edit-tool create --file /r/e << 'P'", "P"))).toEqual({
      kind: "create",
      path: "/r/e",
      text: "",
    });
  });

  test("insert: the lines, and --line in either position", () => {
    expect(
      ok(block("edit-tool insert --line 0 --file /r/a.py << 'P'", "import os", "import re", "P")),
    ).toEqual({
      kind: "insert",
      path: "/r/a.py",
      line: 0,
      text: "import os\nimport re",
    });
  });

  test("view with --range A:B, A:-1 and A: (to the end)", () => {
    expect(ok("edit-tool view --file /r/a.py --range 3:7")).toEqual({
      kind: "view",
      path: "/r/a.py",
      range: [3, 7],
    });
    expect(ok("edit-tool view --range 3:-1 --file /r/a.py")).toEqual({
      kind: "view",
      path: "/r/a.py",
      range: [3, -1],
    });
    expect(ok("edit-tool view --file /r/a.py --range 3:")).toEqual({
      kind: "view",
      path: "/r/a.py",
      range: [3, -1],
    });
  });

  test("blank lines before ---OLD--- are ignored; the terminator may carry trailing spaces", () => {
    expect(
      ok(block("edit-tool str_replace --file /r/a << 'P'", "", "---OLD---", "a", "---NEW---", "b", "P  ")),
    ).toEqual({
      kind: "str_replace",
      path: "/r/a",
      oldText: "a",
      newText: "b",
    });
  });
});

describe("parseEditToolCommand: malformed blocks show the expected form", () => {
  const sr = "edit-tool str_replace --file /r/a.py << 'PATCH'";

  test("str_replace without ---NEW---, without ---OLD---, or with a second pair", () => {
    expect(fails(block(sr, "---OLD---", "a", "b", "PATCH"))).toBe(
      withForm("the heredoc has no ---NEW--- line between the old and the new text.", "str_replace"),
    );
    expect(fails(block(sr, "a", "---NEW---", "b", "PATCH"))).toBe(
      withForm("the heredoc of str_replace must start with a ---OLD--- line.", "str_replace"),
    );
    expect(
      fails(block(sr, "---OLD---", "a", "---NEW---", "b", "---OLD---", "c", "---NEW---", "d", "PATCH")),
    ).toBe(
      withForm(
        "the heredoc has more than one ---OLD--- or ---NEW--- line. One str_replace changes one place: send each change in its own block.",
        "str_replace",
      ),
    );
  });

  test("a heredoc that is never closed", () => {
    expect(fails(block(sr, "---OLD---", "a", "---NEW---", "b"))).toBe(
      withForm("the heredoc is not closed: no line consisting of PATCH ends it.", "str_replace"),
    );
    expect(fails(block("edit-tool create --file /r/n << EOF", "x", "EOF2"))).toBe(
      withForm("the heredoc is not closed: no line consisting of EOF ends it.", "create"),
    );
  });

  test("other commands in the same block, before or after", () => {
    const mixed =
      "an edit-tool command must be the only command in its block. Send it in a block of its own, and any other commands in a later reply.";
    expect(fails(block(sr, "---OLD---", "a", "---NEW---", "b", "PATCH", "python -m pytest"))).toBe(
      withForm(mixed, "str_replace"),
    );
    expect(fails("edit-tool view --file /r/a.py\nls -la")).toBe(withForm(mixed, "view"));
    expect(fails("cd /r && edit-tool view --file a.py")).toBe(withUsage(mixed));
  });

  test("unknown or missing subcommand", () => {
    expect(fails("edit-tool replace --file /r/a.py")).toBe(
      withUsage('unknown command "replace"; the commands are str_replace, create, insert, view, undo.'),
    );
    expect(fails("edit-tool")).toBe(
      withUsage("the command is missing: one of view, create, str_replace, insert, undo."),
    );
  });

  test("options: missing --file, a value missing, unknown, repeated, stray words", () => {
    expect(fails("edit-tool view")).toBe(
      withForm("view needs --file with the absolute path of the file.", "view"),
    );
    expect(fails("edit-tool view --file")).toBe(withForm("--file needs a value.", "view"));
    expect(fails("edit-tool undo --file /r/a --all")).toBe(
      withForm('undo does not take the option "--all".', "undo"),
    );
    expect(fails("edit-tool view --file /r/a /r/b")).toBe(
      withForm('view does not take the argument "/r/b".', "view"),
    );
    expect(fails("edit-tool view --file /r/a --file /r/b")).toBe(withForm("--file is given twice.", "view"));
    expect(fails("edit-tool view --file /r/a --line 3")).toBe(
      withForm('view does not take the option "--line".', "view"),
    );
  });

  test("bad numbers for --line and --range", () => {
    expect(fails(block("edit-tool insert --file /r/a --line x << P", "t", "P"))).toBe(
      withForm('--line must be a line number (0 = at the top); got "x".', "insert"),
    );
    expect(fails(block("edit-tool insert --file /r/a --line -1 << P", "t", "P"))).toBe(
      withForm('--line must be a line number (0 = at the top); got "-1".', "insert"),
    );
    expect(fails(block("edit-tool insert --file /r/a << P", "t", "P"))).toBe(
      withForm("insert needs --line N (the line to insert after; 0 = top).", "insert"),
    );
    expect(fails("edit-tool view --file /r/a --range 10-20")).toBe(
      withForm(
        '--range must be two line numbers like 40:80 (40:-1 means from line 40 to the end); got "10-20".',
        "view",
      ),
    );
  });

  test("a heredoc where none belongs, none where one is needed, and heredoc forms not supported", () => {
    expect(fails(block("edit-tool view --file /r/a << P", "P"))).toBe(
      withForm("view takes no heredoc; it is one line.", "view"),
    );
    expect(fails("edit-tool create --file /r/a")).toBe(
      withForm("create needs its text in a heredoc that starts with << 'PATCH' on the first line.", "create"),
    );
    expect(fails(block("edit-tool create --file /r/a <<- P", "x", "P"))).toBe(
      withForm("<<- is not supported (it strips leading tabs from your text); use << 'PATCH'.", "create"),
    );
    expect(fails("edit-tool create --file /r/a <<< 'x'")).toBe(
      withForm("<<< (a here-string) is not supported; use a heredoc: << 'PATCH', the text, PATCH.", "create"),
    );
    expect(fails(block("edit-tool create --file /r/a << 'P' > out.txt", "x", "P"))).toBe(
      withForm(
        `the heredoc start "<< 'P' > out.txt" cannot be read; end the first line with << 'PATCH' (any word, quoted or not), and put nothing after it.`,
        "create",
      ),
    );
    expect(fails("edit-tool view --file '/r/a")).toBe(withForm("a ' quote is not closed.", "view"));
  });

  test("the expected forms read as documented", () => {
    expect(EDIT_TOOL_FORMS.str_replace).toBe(
      "edit-tool str_replace --file /absolute/path/file.py << 'PATCH'\n---OLD---\nexact text to replace\n---NEW---\nreplacement text\nPATCH",
    );
    for (const form of Object.values(EDIT_TOOL_FORMS)) expect(EDIT_TOOL_USAGE).toContain(form);
  });
});
