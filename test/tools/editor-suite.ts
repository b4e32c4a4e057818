/**
 * The editor's behaviour, written once and run through both fronts (str_replace_editor and the
 * heredoc edit-tool): exact outputs for every command and every error, and the files' exact bytes.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { EditorFront, EditorOps } from "./editor-fronts.js";
import { makeSandbox, type Sandbox } from "./helpers.js";
import { pngBytes } from "./image-bytes.js";

const APP = "import os\n\ndef main():\n\tprint('naïve – 日本')\n    return 0\n";
const APP_VIEW = [
  "     1\timport os",
  "     2\t",
  "     3\tdef main():",
  "     4\t\tprint('naïve – 日本')",
  "     5\t    return 0",
];
const TWICE = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x + 1\n";

export function editorSuite(front: EditorFront): void {
  const w = front.words;
  let box: Sandbox;
  let ed: EditorOps;
  beforeEach(() => {
    box = makeSandbox();
    ed = front.make();
  });
  afterEach(() => box.cleanup());

  describe(`${front.label}: view`, () => {
    test("a whole file, numbered like cat -n, tabs and UTF-8 as they are", async () => {
      const p = box.write("app.py", APP);
      expect(await ed.view(box.ctx, p)).toEqual({
        output: [`${p}, lines 1-5 of 5:`, ...APP_VIEW].join("\n"),
        returncode: 0,
      });
    });

    test("a range, an open range (-1) and an end past the last line", async () => {
      const p = box.write("app.py", APP);
      expect((await ed.view(box.ctx, p, [2, 3])).output).toBe(
        [`${p}, lines 2-3 of 5:`, ...APP_VIEW.slice(1, 3)].join("\n"),
      );
      expect((await ed.view(box.ctx, p, [4, -1])).output).toBe(
        [`${p}, lines 4-5 of 5:`, ...APP_VIEW.slice(3)].join("\n"),
      );
      expect((await ed.view(box.ctx, p, [5, 99])).output).toBe(`${p}, lines 5-5 of 5:\n${APP_VIEW[4]}`);
    });

    test("range errors say what is wrong and what is valid", async () => {
      const p = box.write("app.py", APP);
      const cases: Array<[[number, number], string]> = [
        [[0, 2], `${w.range(0, 2)} is invalid: lines are numbered from 1, so the start must be at least 1.`],
        [[6, 8], `${w.range(6, 8)} is invalid: ${p} has 5 lines, so the start must be between 1 and 5.`],
        [
          [4, 2],
          `${w.range(4, 2)} is invalid: the end (2) comes before the start (4). Use ${w.range(4, -1)} to view from line 4 to the end of the file.`,
        ],
      ];
      for (const [range, message] of cases) {
        expect(await ed.view(box.ctx, p, range)).toEqual({ output: message, returncode: 1 });
      }
    });

    test("an empty file, a file without a final newline, a CRLF file", async () => {
      const empty = box.write("empty.txt", "");
      expect((await ed.view(box.ctx, empty)).output).toBe(`${empty} is empty (0 bytes).`);
      const open = box.write("open.txt", "a\nb");
      expect((await ed.view(box.ctx, open)).output).toBe(
        `${open}, lines 1-2 of 2:\n     1\ta\n     2\tb\n(no newline at the end of the file)`,
      );
      const crlf = box.write("win.txt", "one\r\ntwo\r\n");
      expect((await ed.view(box.ctx, crlf)).output).toBe(
        `${crlf}, lines 1-2 of 2 (CRLF line endings):\n     1\tone\n     2\ttwo`,
      );
    });

    test("long output is clipped at whole lines with a note on how to narrow it", async () => {
      const lines = Array.from({ length: 40 }, (_, i) => `line number ${i + 1}`);
      const p = box.write("long.txt", `${lines.join("\n")}\n`);
      const small = front.make({ outputLimit: 100 });
      expect(await small.view(box.ctx, p)).toEqual({
        output: [
          `${p}, lines 1-4 of 40:`,
          "     1\tline number 1",
          "     2\tline number 2",
          "     3\tline number 3",
          "     4\tline number 4",
          `[Clipped after line 4 to stay within 100 characters. Continue with ${w.range(5, -1)}, or find the lines you need with grep -n 'PATTERN' ${p}.]`,
        ].join("\n"),
        returncode: 0,
      });
      expect((await small.view(box.ctx, p, [10, 20])).output).toBe(
        [
          `${p}, lines 10-13 of 40:`,
          "    10\tline number 10",
          "    11\tline number 11",
          "    12\tline number 12",
          "    13\tline number 13",
          `[Clipped after line 13 to stay within 100 characters. Continue with ${w.range(14, 20)}, or find the lines you need with grep -n 'PATTERN' ${p}.]`,
        ].join("\n"),
      );
    });

    test("a single line longer than the limit is cut", async () => {
      const p = box.write("min.js", `${"x".repeat(500)}\n`);
      const small = front.make({ outputLimit: 50 });
      expect((await small.view(box.ctx, p)).output).toBe(
        `${p}, lines 1-1 of 1:\n     1\t${"x".repeat(43)}\n` +
          `[Line 1 is 500 characters long; only its beginning is shown. Read it from the shell in pieces, e.g. sed -n '1p' ${p} | cut -c1-2000.]`,
      );
    });

    test("a directory: non-hidden entries two levels deep, sorted, directories marked", async () => {
      box.write("proj/README.md", "");
      box.write("proj/src/main.py", "");
      box.write("proj/src/util/deep.py", "");
      box.write("proj/src-extra.txt", "");
      box.write("proj/.git/config", "");
      box.write("proj/src/.cache", "");
      mkdirSync(box.path("proj/empty"));
      const p = box.path("proj");
      expect(await ed.view(box.ctx, p)).toEqual({
        output: [
          `${p}, entries up to 2 levels deep (hidden ones left out):`,
          "README.md",
          "empty/",
          "src/",
          "src/main.py",
          "src/util/",
          "src-extra.txt",
        ].join("\n"),
        returncode: 0,
      });
      expect((await ed.view(box.ctx, `${p}/`)).output.split("\n")[1]).toBe("README.md");
      symlinkSync(box.path("proj/src"), box.path("link"));
      expect((await ed.view(box.ctx, box.path("link"))).output).toBe(
        `${box.path("link")}, entries up to 2 levels deep (hidden ones left out):\nmain.py\nutil/\nutil/deep.py`,
      );
      expect((await ed.view(box.ctx, box.path("proj/empty"))).output).toBe(
        `${box.path("proj/empty")} is an empty directory (or holds only hidden entries).`,
      );
      expect(await ed.view(box.ctx, p, [1, 2])).toEqual({
        output: `${p} is a directory; a line range only applies to files. View it without one.`,
        returncode: 1,
      });
    });

    test("a missing path and a relative path", async () => {
      const p = box.path("nope/x.py");
      expect(await ed.view(box.ctx, p)).toEqual({
        output: `There is no file or directory at ${p}. Check the path: view the directory ${box.path("nope")} to see what it holds.`,
        returncode: 1,
      });
      expect(await ed.view(box.ctx, "src/x.py")).toEqual({
        output: `The path "src/x.py" is not absolute; the editor needs a full path starting with /. If you meant the one in the working directory, use ${box.dir}/src/x.py.`,
        returncode: 1,
      });
    });
  });

  describe(`${front.label}: create`, () => {
    test("makes a new file (and its directories) with exactly the given text", async () => {
      const p = box.path("pkg/new/mod.py");
      expect(await ed.create(box.ctx, p, "x = 1\ny = 'é'\n")).toEqual({
        output: `Created ${p} (2 lines, 15 bytes).`,
        returncode: 0,
      });
      expect(box.read("pkg/new/mod.py").toString("utf8")).toBe("x = 1\ny = 'é'\n");
      const empty = box.path("empty.txt");
      expect((await ed.create(box.ctx, empty, "")).output).toBe(`Created ${empty} (0 lines, 0 bytes).`);
      expect(box.read("empty.txt").length).toBe(0);
    });

    test("refuses an existing file (leaving it alone) and a directory", async () => {
      const p = box.write("app.py", APP);
      expect(await ed.create(box.ctx, p, "other\n")).toEqual({
        output: `Cannot create ${p}: a file already exists there, and create only makes new files. Change it with str_replace or insert (view it first), or choose another path.`,
        returncode: 1,
      });
      expect(box.read("app.py").toString("utf8")).toBe(APP);
      mkdirSync(box.path("dir"));
      expect(await ed.create(box.ctx, box.path("dir"), "x\n")).toEqual({
        output: `Cannot create ${box.path("dir")}: it is an existing directory.`,
        returncode: 1,
      });
    });
  });

  describe(`${front.label}: str_replace`, () => {
    test("replaces a unique text and shows the lines around it", async () => {
      const p = box.write("app.py", APP);
      expect(await ed.strReplace(box.ctx, p, "    return 0", "    return 1\n    # done")).toEqual({
        output: [
          `Edited ${p}: replaced the text on line 5.`,
          "Lines 1-6 after the edit:",
          ...APP_VIEW.slice(0, 4),
          "     5\t    return 1",
          "     6\t    # done",
          `Check the lines above; if the edit is wrong, revert it with ${w.undoHint(p)}.`,
        ].join("\n"),
        returncode: 0,
      });
      expect(box.read("app.py").toString("utf8")).toBe(
        APP.replace("    return 0", "    return 1\n    # done"),
      );
    });

    test("the snippet keeps four lines of context on each side", async () => {
      const body = Array.from({ length: 20 }, (_, i) => `v${i + 1} = ${i + 1}`);
      const p = box.write("vals.py", `${body.join("\n")}\n`);
      const out = (await ed.strReplace(box.ctx, p, "v10 = 10\nv11 = 11", "v10 = 0")).output;
      expect(out).toBe(
        [
          `Edited ${p}: replaced the text on lines 10-11.`,
          "Lines 6-14 after the edit:",
          "     6\tv6 = 6",
          "     7\tv7 = 7",
          "     8\tv8 = 8",
          "     9\tv9 = 9",
          "    10\tv10 = 0",
          "    11\tv12 = 12",
          "    12\tv13 = 13",
          "    13\tv14 = 14",
          "    14\tv15 = 15",
          `Check the lines above; if the edit is wrong, revert it with ${w.undoHint(p)}.`,
        ].join("\n"),
      );
    });

    test("an empty new text deletes the old one", async () => {
      const p = box.write("d.txt", "keep\ndrop\nkeep too\n");
      expect((await ed.strReplace(box.ctx, p, "keep\ndrop\n", "keep\n")).returncode).toBe(0);
      expect(box.read("d.txt").toString("utf8")).toBe("keep\nkeep too\n");
      expect((await ed.strReplace(box.ctx, p, " too", "")).returncode).toBe(0);
      expect(box.read("d.txt").toString("utf8")).toBe("keep\nkeep\n");
    });

    test("zero occurrences: an error that asks for an exact copy", async () => {
      const p = box.write("twice.py", TWICE);
      expect(await ed.strReplace(box.ctx, p, "return x+1", "return x")).toEqual({
        output: `No replacement was made: ${w.oldText} does not occur in ${p}. It must match the file exactly, character for character, including indentation and line breaks. View the lines with ${w.viewHint(p)} and copy them exactly.`,
        returncode: 1,
      });
      expect(box.read("twice.py").toString("utf8")).toBe(TWICE);
    });

    test("zero occurrences with wrong indentation or copied line numbers: hints", async () => {
      const p = box.write("app.py", APP);
      expect((await ed.strReplace(box.ctx, p, "def main():\n  print('naïve – 日本')", "x")).output).toBe(
        `No replacement was made: ${w.oldText} does not occur in ${p}. It must match the file exactly, character for character, including indentation and line breaks. Ignoring the spaces and tabs at the start and end of each line, it does match at line 3: the difference is in the whitespace (indentation depth, tabs against spaces, trailing spaces). View the lines with ${w.viewHint(p)} and copy them exactly.`,
      );
      expect((await ed.strReplace(box.ctx, p, "     5\t    return 0", "x")).output).toBe(
        `No replacement was made: ${w.oldText} does not occur in ${p}. It must match the file exactly, character for character, including indentation and line breaks. It seems to start with line numbers copied from the view output (a number and a tab); leave those out. View the lines with ${w.viewHint(p)} and copy them exactly.`,
      );
    });

    test("several occurrences: an error listing the line of each", async () => {
      const p = box.write("twice.py", TWICE);
      expect(await ed.strReplace(box.ctx, p, "    return x + 1", "    return x + 2")).toEqual({
        output: `No replacement was made: ${w.oldText} occurs 2 times in ${p}, starting on lines 2, 6. It must occur exactly once: add surrounding lines to ${w.oldText} so that it matches only the place you mean to change.`,
        returncode: 1,
      });
      const overlap = box.write("aaa.txt", "aaa\n");
      expect((await ed.strReplace(box.ctx, overlap, "aa", "b")).output).toBe(
        `No replacement was made: ${w.oldText} occurs 2 times in ${overlap}, starting on line 1. It must occur exactly once: add surrounding lines to ${w.oldText} so that it matches only the place you mean to change.`,
      );
      expect(box.read("twice.py").toString("utf8")).toBe(TWICE);
    });

    test("identical old and new texts, and an empty old text, are errors", async () => {
      const p = box.write("twice.py", TWICE);
      expect(await ed.strReplace(box.ctx, p, "def f(x):", "def f(x):")).toEqual({
        output: `No change: ${w.oldText} and ${w.newText} are the same, so the edit would change nothing. Put the text as it should read after the edit in ${w.newText}.`,
        returncode: 1,
      });
      expect(await ed.strReplace(box.ctx, p, "", "x")).toEqual({
        output: `Nothing to replace: ${w.oldText} is empty. It must be the exact text to replace, copied from the file, with enough lines to occur only once. To add text without replacing any, use insert.`,
        returncode: 1,
      });
    });

    test("a missing file and a directory are errors", async () => {
      const missing = box.path("gone.py");
      expect((await ed.strReplace(box.ctx, missing, "a", "b")).output).toBe(
        `There is no file or directory at ${missing}. Check the path: view the directory ${box.dir} to see what it holds.`,
      );
      expect(await ed.strReplace(box.ctx, box.dir, "a", "b")).toEqual({
        output: `${box.dir} is a directory; str_replace works on a file. Give the path of a file inside it.`,
        returncode: 1,
      });
    });
  });

  describe(`${front.label}: insert`, () => {
    test("after a line, at the top and after the last line", async () => {
      const p = box.write("abc.txt", "a\nb\nc\n");
      expect(await ed.insert(box.ctx, p, 1, "a2\na3")).toEqual({
        output: [
          `Inserted 2 lines after line 1 of ${p}.`,
          "Lines 1-5 after the edit:",
          "     1\ta",
          "     2\ta2",
          "     3\ta3",
          "     4\tb",
          "     5\tc",
          `Check the lines above; if the edit is wrong, revert it with ${w.undoHint(p)}.`,
        ].join("\n"),
        returncode: 0,
      });
      expect((await ed.insert(box.ctx, p, 0, "top")).output.split("\n")[0]).toBe(
        `Inserted 1 line at the top of ${p}.`,
      );
      expect((await ed.insert(box.ctx, p, 6, "end")).output.split("\n")[0]).toBe(
        `Inserted 1 line after line 6 of ${p}.`,
      );
      expect(box.read("abc.txt").toString("utf8")).toBe("top\na\na2\na3\nb\nc\nend\n");
    });

    test("text that already ends with a newline gets no second one; a blank line can be inserted", async () => {
      const p = box.write("abc.txt", "a\nb\n");
      await ed.insert(box.ctx, p, 1, "x\n");
      await ed.insert(box.ctx, p, 0, "\n");
      expect(box.read("abc.txt").toString("utf8")).toBe("\na\nx\nb\n");
    });

    test("at the end of a file without a final newline, the file still has none", async () => {
      const p = box.write("open.txt", "a\nb");
      expect((await ed.insert(box.ctx, p, 2, "c")).returncode).toBe(0);
      expect(box.read("open.txt").toString("utf8")).toBe("a\nb\nc");
      expect((await ed.insert(box.ctx, p, 1, "a2")).returncode).toBe(0);
      expect(box.read("open.txt").toString("utf8")).toBe("a\na2\nb\nc");
    });

    test("into an empty file", async () => {
      const p = box.write("empty.txt", "");
      expect((await ed.insert(box.ctx, p, 0, "first")).returncode).toBe(0);
      expect(box.read("empty.txt").toString("utf8")).toBe("first\n");
    });

    test("a line out of range and an empty text are errors", async () => {
      const p = box.write("abc.txt", "a\nb\nc\n");
      expect(await ed.insert(box.ctx, p, 4, "x")).toEqual({
        output: `${w.insertLine} 4 is out of range: ${p} has 3 lines, so it must be between 0 (before the first line) and 3 (after the last line).`,
        returncode: 1,
      });
      const empty = box.write("empty.txt", "");
      expect((await ed.insert(box.ctx, empty, 1, "x")).output).toBe(
        `${w.insertLine} 1 is out of range: ${empty} is empty, so the only valid value is 0.`,
      );
      expect(await ed.insert(box.ctx, p, 1, "")).toEqual({
        output: `Nothing to insert: ${w.insertText} is empty. Give the lines to insert.`,
        returncode: 1,
      });
      expect(box.read("abc.txt").toString("utf8")).toBe("a\nb\nc\n");
    });
  });

  describe(`${front.label}: undo`, () => {
    test("reverts edits one level at a time, then says there is nothing left", async () => {
      const p = box.write("abc.txt", "a\nb\nc\n");
      await ed.strReplace(box.ctx, p, "b", "B");
      await ed.insert(box.ctx, p, 3, "d");
      await ed.strReplace(box.ctx, p, "a\n", "");
      expect(box.read("abc.txt").toString("utf8")).toBe("B\nc\nd\n");
      expect(await ed.undo(box.ctx, p)).toEqual({
        output: `Undid the last edit of ${p}: it has its earlier content again (2 earlier edits can still be undone).`,
        returncode: 0,
      });
      expect(box.read("abc.txt").toString("utf8")).toBe("a\nB\nc\nd\n");
      expect((await ed.undo(box.ctx, p)).output).toBe(
        `Undid the last edit of ${p}: it has its earlier content again (1 earlier edit can still be undone).`,
      );
      expect((await ed.undo(box.ctx, p)).output).toBe(
        `Undid the last edit of ${p}: it has its earlier content again.`,
      );
      expect(box.read("abc.txt").toString("utf8")).toBe("a\nb\nc\n");
      expect(await ed.undo(box.ctx, p)).toEqual({
        output: `There is no edit of ${p} to undo: this editor has not changed that file, or all its edits were already undone.`,
        returncode: 1,
      });
    });

    test("history is per file, and a failed edit leaves none", async () => {
      const a = box.write("a.txt", "a\n");
      const b = box.write("b.txt", "b\n");
      await ed.strReplace(box.ctx, a, "a", "A");
      await ed.strReplace(box.ctx, b, "zzz", "y");
      expect((await ed.undo(box.ctx, b)).returncode).toBe(1);
      expect((await ed.undo(box.ctx, a)).returncode).toBe(0);
      expect(box.read("a.txt").toString("utf8")).toBe("a\n");
    });

    test("undoing a create removes the file", async () => {
      const p = box.path("made.txt");
      await ed.create(box.ctx, p, "x\n");
      expect(await ed.undo(box.ctx, p)).toEqual({
        output: `Undid the creation of ${p}: the file was removed.`,
        returncode: 0,
      });
      expect((await ed.view(box.ctx, p)).returncode).toBe(1);
    });

    test("another editor instance has its own history", async () => {
      const p = box.write("a.txt", "a\n");
      await ed.strReplace(box.ctx, p, "a", "A");
      expect((await front.make().undo(box.ctx, p)).returncode).toBe(1);
    });
  });

  describe(`${front.label}: files the editor will not touch`, () => {
    test("binary data (NUL bytes) is refused for viewing and editing", async () => {
      const p = box.write("data.bin", Buffer.from([0x61, 0x00, 0x62, 0x0a]));
      const message = `${p} is not a text file: it contains NUL bytes (binary data), so the editor will not show or change it. Inspect it from the shell, e.g. file ${p} or xxd ${p} | head.`;
      expect(await ed.view(box.ctx, p)).toEqual({ output: message, returncode: 1 });
      expect(await ed.strReplace(box.ctx, p, "a", "b")).toEqual({ output: message, returncode: 1 });
      expect(box.read("data.bin")).toEqual(Buffer.from([0x61, 0x00, 0x62, 0x0a]));
    });

    test("text that is not UTF-8 is refused", async () => {
      const p = box.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
      expect(await ed.insert(box.ctx, p, 0, "x")).toEqual({
        output: `${p} is not valid UTF-8 text (it may use another encoding, such as Latin-1), so the editor will not show or change it: writing it back could corrupt the bytes that are not UTF-8. Work on it from the shell instead.`,
        returncode: 1,
      });
    });

    test("files over the size limit are refused", async () => {
      const p = box.write("big.txt", "x".repeat(2500));
      const small = front.make({ maxFileBytes: 2000 });
      const message = `${p} is 2.5 kB, more than the editor's limit of 2.0 kB for one file, so it was not opened. Look at parts of it from the shell instead, e.g. grep -n 'PATTERN' ${p} or sed -n '100,160p' ${p}.`;
      expect(await small.view(box.ctx, p)).toEqual({ output: message, returncode: 1 });
      expect(await small.strReplace(box.ctx, p, "x", "y")).toEqual({ output: message, returncode: 1 });
    });

    test("an image is not edited as text", async () => {
      const p = box.write("plot.png", pngBytes(4, 3));
      expect(await ed.strReplace(box.ctx, p, "IHDR", "x")).toEqual({
        output: `${p} is an image (PNG, 4x3 pixels), not a text file; str_replace only works on text.`,
        returncode: 1,
      });
    });
  });
}
