/**
 * Byte-exact preservation: CRLF line endings, tabs, a missing final newline, a byte order mark and
 * non-ASCII UTF-8 survive create, str_replace, insert and undo, through both fronts.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { editToolFront, jsonFront } from "./editor-fronts.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

const ORIGINAL = "\uFEFFdef naïve():\r\n\treturn '– 日本'\r\n\r\n# end";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const bytes = (s: string) => Buffer.from(s, "utf8");

for (const front of [jsonFront, editToolFront]) {
  describe(front.label, () => {
    test("str_replace with LF text in a CRLF file, insert, then undo back to the original bytes", async () => {
      const ed = front.make();
      const p = box.write("w.py", ORIGINAL);
      const r1 = await ed.strReplace(box.ctx, p, "\treturn '– 日本'\n", "\tx = 'ü'\n\treturn x\n");
      expect(r1.returncode).toBe(0);
      const step1 = "\uFEFFdef naïve():\r\n\tx = 'ü'\r\n\treturn x\r\n\r\n# end";
      expect(box.read("w.py")).toEqual(bytes(step1));
      expect((await ed.insert(box.ctx, p, 5, "# 終")).returncode).toBe(0);
      const step2 = `${step1}\r\n# 終`;
      expect(box.read("w.py")).toEqual(bytes(step2));
      expect((await ed.insert(box.ctx, p, 1, '\t"""doc"""')).returncode).toBe(0);
      expect(box.read("w.py")).toEqual(
        bytes('\uFEFFdef naïve():\r\n\t"""doc"""\r\n\tx = \'ü\'\r\n\treturn x\r\n\r\n# end\r\n# 終'),
      );
      for (const expected of [step2, step1, ORIGINAL]) {
        expect((await ed.undo(box.ctx, p)).returncode).toBe(0);
        expect(box.read("w.py")).toEqual(bytes(expected));
      }
    });

    test("a view shows the text without the CR and keeps the BOM in line 1", async () => {
      const ed = front.make();
      const p = box.write("w.py", ORIGINAL);
      expect((await ed.view(box.ctx, p)).output).toBe(
        [
          `${p}, lines 1-4 of 4 (CRLF line endings):`,
          "     1\t\uFEFFdef naïve():",
          "     2\t\treturn '– 日本'",
          "     3\t",
          "     4\t# end",
          "(no newline at the end of the file)",
        ].join("\n"),
      );
    });

    test("a file with mixed line endings is matched exactly as written", async () => {
      const ed = front.make();
      const p = box.write("mixed.txt", "a\r\nb\nc\r\n");
      expect((await ed.strReplace(box.ctx, p, "b\nc", "B\nC")).returncode).toBe(0);
      expect(box.read("mixed.txt")).toEqual(bytes("a\r\nB\nC\r\n"));
      expect((await ed.strReplace(box.ctx, p, "a\nB", "x")).returncode).toBe(1);
    });
  });
}

test("create writes the text byte for byte (str_replace_editor), and undo removes the file", async () => {
  const ed = jsonFront.make();
  const p = box.path("new.txt");
  expect((await ed.create(box.ctx, p, ORIGINAL)).output).toBe(`Created ${p} (4 lines, 47 bytes).`);
  expect(box.read("new.txt")).toEqual(bytes(ORIGINAL));
  expect((await ed.undo(box.ctx, p)).returncode).toBe(0);
  expect((await ed.view(box.ctx, p)).returncode).toBe(1);
});

test("edit-tool create ends the file with one newline after the last heredoc line", async () => {
  const ed = editToolFront.make();
  const p = box.path("new.txt");
  expect((await ed.create(box.ctx, p, "\tnaïve\r\n日本\n")).returncode).toBe(0);
  expect(box.read("new.txt")).toEqual(bytes("\tnaïve\r\n日本\n"));
});
