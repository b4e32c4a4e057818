/**
 * The editor on the languages localization reads (issue 28): it checks nothing of a file's
 * language after an edit (no syntax check, Python's or another's) and changes nothing it was not
 * asked to: Go's tab indentation, a Makefile's tabs, PHP's opening tag and Rust's raw strings come
 * back as they were written, through both fronts.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { editToolFront, jsonFront } from "../tools/editor-fronts.js";
import { makeSandbox, type Sandbox } from "../tools/helpers.js";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const GO =
  'package store\n\nfunc (s *Store) Lookup(id string) error {\n\tif id == "" {\n\t\treturn ErrMissing\n\t}\n\treturn nil\n}\n';

for (const front of [jsonFront, editToolFront]) {
  describe(front.label, () => {
    test("a Go edit keeps the tabs of the old and new text, and the file's other lines, byte for byte", async () => {
      const ed = front.make();
      const p = box.write("store.go", GO);
      const r = await ed.strReplace(
        box.ctx,
        p,
        '\tif id == "" {\n\t\treturn ErrMissing\n\t}\n',
        '\tif id == "" || s == nil {\n\t\treturn ErrMissing\n\t}\n',
      );
      expect(r.returncode).toBe(0);
      expect(box.read("store.go").toString("utf8")).toBe(GO.replace('id == "" {', 'id == "" || s == nil {'));
      // the snippet shows line 4 as the file has it: the line number, the view's tab, the file's tab
      expect(r.output).toContain('     4\t\tif id == "" || s == nil {');
    });

    test("an edit that leaves a file unparsable in its language is written as asked (no syntax check refuses it)", async () => {
      const ed = front.make();
      const p = box.write("lib.rs", 'pub fn raw() -> &\'static str {\n    r#"a "quoted" b"#\n}\n');
      expect((await ed.insert(box.ctx, p, 1, "    let x = ;")).returncode).toBe(0);
      expect(box.read("lib.rs").toString("utf8")).toBe(
        'pub fn raw() -> &\'static str {\n    let x = ;\n    r#"a "quoted" b"#\n}\n',
      );
      const php = box.write("index.php", "<?php\n\nfunction f() {}\n");
      expect((await ed.strReplace(box.ctx, php, "function f() {}", "function f( {}")).returncode).toBe(0);
      expect(box.read("index.php").toString("utf8")).toBe("<?php\n\nfunction f( {}\n");
    });

    test("a Makefile's recipe tabs survive an insert and an undo", async () => {
      const ed = front.make();
      const original = "all: build\n\nbuild:\n\tgo build ./...\n";
      const p = box.write("Makefile", original);
      expect((await ed.insert(box.ctx, p, 4, "\tgo vet ./...")).returncode).toBe(0);
      expect(box.read("Makefile").toString("utf8")).toBe(`${original}\tgo vet ./...\n`);
      expect((await ed.undo(box.ctx, p)).returncode).toBe(0);
      expect(box.read("Makefile").toString("utf8")).toBe(original);
    });
  });
}
