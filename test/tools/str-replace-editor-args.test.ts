/** Argument checking of the str_replace_editor JSON tool: every mistake gets its own clear error. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createStrReplaceEditorTool } from "../../src/tools/str-replace-editor.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

let box: Sandbox;
beforeAll(() => {
  box = makeSandbox();
});
afterAll(() => box.cleanup());

const tool = createStrReplaceEditorTool();
const run = (args: Record<string, unknown>) => tool.execute(args, box.ctx);
const error = (output: string) => ({ output, returncode: 1 });

describe("str_replace_editor arguments", () => {
  test("the command is missing or unknown", async () => {
    const p = box.write("a.txt", "a\n");
    expect(await run({ path: p })).toEqual(
      error("Missing argument command: one of view, create, str_replace, insert, undo_edit."),
    );
    expect(await run({ command: "delete", path: p })).toEqual(
      error(
        'Unknown command "delete" (a string); the commands are view, create, str_replace, insert, undo_edit.',
      ),
    );
    expect(await run({ command: 3, path: p })).toEqual(
      error("Unknown command 3 (a number); the commands are view, create, str_replace, insert, undo_edit."),
    );
  });

  test("unknown argument names are named, with the known ones", async () => {
    expect(
      await run({ command: "str_replace", path: box.path("a.txt"), old_string: "a", new_string: "b" }),
    ).toEqual(
      error(
        'str_replace_editor does not know the arguments "old_string", "new_string". Its arguments are: command, path, file_text, old_str, new_str, insert_line, view_range.',
      ),
    );
  });

  test("an argument the command does not use is an error; null counts as absent", async () => {
    const p = box.path("c.txt");
    expect(await run({ command: "create", path: p, new_str: "x" })).toEqual(
      error("create does not use new_str; it takes path, file_text."),
    );
    expect(await run({ command: "view", path: box.dir, old_str: "x", insert_line: 2 })).toEqual(
      error("view does not use old_str, insert_line; it takes path, view_range."),
    );
    const made = await run({ command: "create", path: p, file_text: "x\n", old_str: null, view_range: null });
    expect(made).toEqual({ output: `Created ${p} (1 line, 2 bytes).`, returncode: 0 });
  });

  test("missing or mistyped values", async () => {
    const p = box.write("m.txt", "one\ntwo\n");
    expect(await run({ command: "view" })).toEqual(
      error("Missing argument path: the absolute path of the file or directory."),
    );
    expect(await run({ command: "view", path: 7 })).toEqual(
      error("path must be a string (the absolute path of the file or directory); got 7 (a number)."),
    );
    expect(await run({ command: "create", path: box.path("n.txt") })).toEqual(
      error("Missing argument file_text: the whole content of the new file."),
    );
    expect(await run({ command: "str_replace", path: p, new_str: "x" })).toEqual(
      error("Missing argument old_str: the exact text to replace."),
    );
    expect(await run({ command: "str_replace", path: p, old_str: ["one"] })).toEqual(
      error('old_str must be a string (the exact text to replace); got ["one"] (an array).'),
    );
    expect(await run({ command: "insert", path: p, new_str: "x" })).toEqual(
      error("Missing argument insert_line: the line after which new_str goes (0 is the top)."),
    );
    expect(await run({ command: "insert", path: p, insert_line: "two", new_str: "x" })).toEqual(
      error('insert_line must be a whole number; got "two" (a string).'),
    );
    expect(await run({ command: "insert", path: p, insert_line: 1.5, new_str: "x" })).toEqual(
      error("insert_line must be a whole number; got 1.5 (a number)."),
    );
    expect(await run({ command: "insert", path: p, insert_line: 1 })).toEqual(
      error("Missing argument new_str: the lines to insert."),
    );
    expect(await run({ command: "insert", path: p, insert_line: -1, new_str: "x" })).toEqual(
      error(
        `insert_line -1 is out of range: ${p} has 2 lines, so it must be between 0 (before the first line) and 2 (after the last line).`,
      ),
    );
    for (const bad of [[1], [1, "x"], "1,2", { start: 1 }, [1, 2, 3]]) {
      expect((await run({ command: "view", path: p, view_range: bad })).output).toMatch(
        /^view_range must be two line numbers \[start, end\] \(an end of -1 means to the end of the file\); got .+\.$/,
      );
    }
    expect((await run({ command: "view", path: p, view_range: "1,2" })).output).toBe(
      'view_range must be two line numbers [start, end] (an end of -1 means to the end of the file); got "1,2" (a string).',
    );
    expect(await run({ command: "view", path: p, view_range: [1, -3] })).toEqual(
      error("view_range [1, -3] is invalid: the end must be a line number, or -1 for the end of the file."),
    );
  });

  test("numbers written as strings are accepted; a missing new_str deletes old_str", async () => {
    const p = box.write("s.txt", "one\ntwo\nthree\n");
    expect((await run({ command: "view", path: p, view_range: ["2", "2"] })).output).toBe(
      `${p}, lines 2-2 of 3:\n     2\ttwo`,
    );
    expect((await run({ command: "insert", path: p, insert_line: "3", new_str: "four" })).returncode).toBe(0);
    expect((await run({ command: "str_replace", path: p, old_str: "two\n" })).returncode).toBe(0);
    expect(box.read("s.txt").toString("utf8")).toBe("one\nthree\nfour\n");
  });

  test("create keeps a missing final newline", async () => {
    const p = box.path("nofinal.txt");
    expect(await run({ command: "create", path: p, file_text: "a\nb" })).toEqual({
      output: `Created ${p} (2 lines, 3 bytes).`,
      returncode: 0,
    });
    expect(box.read("nofinal.txt").toString("utf8")).toBe("a\nb");
  });

  test("the schema and description name every command and argument", () => {
    expect(tool.name).toBe("str_replace_editor");
    const props = (tool.parameters as { properties: Record<string, { enum?: string[] }> }).properties;
    expect(Object.keys(props)).toEqual([
      "command",
      "path",
      "file_text",
      "old_str",
      "new_str",
      "insert_line",
      "view_range",
    ]);
    expect(props.command.enum).toEqual(["view", "create", "str_replace", "insert", "undo_edit"]);
    for (const word of ["view_range", "undo_edit", "CRLF", "exactly once", "1.0 MB"]) {
      expect(tool.description).toContain(word);
    }
  });
});
