import { describe, expect, it } from "vitest";
import { normalizePatch } from "../../src/select/normalize.js";
import { parsePatch, withoutFiles } from "../../src/select/patch-parse.js";
import { pythonAstKey } from "../../src/select/python-ast.js";
import { newFileDiff } from "../support/calc-fixture.js";

/** A one-hunk git diff of `path` replacing `old` lines by `new` lines, with `ctx` as context above. */
function diff(
  path: string,
  old: string[],
  added: string[],
  ctx = ["def clamp(value, low, high):"],
  at = 5,
): string {
  return [
    `diff --git a/${path} b/${path}`,
    "index 1111111..2222222 100644",
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${at},${ctx.length + old.length} +${at},${ctx.length + added.length} @@`,
    ...ctx.map((l) => ` ${l}`),
    ...old.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    "",
  ].join("\n");
}

const FIX = diff("calc/ops.py", ["        return low"], ["        return high"]);

describe("normalizePatch", () => {
  it("gives the same key to patches that differ in whitespace, comments, context and position", () => {
    const a = normalizePatch(FIX);
    const spaced = normalizePatch(
      diff("calc/ops.py", ["        return low"], ["        return   high   # the upper bound"]),
    );
    const moved = normalizePatch(
      diff(
        "calc/ops.py",
        ["        return low"],
        ["        return high", "        # done"],
        ["    if value > high:"],
        40,
      ),
    );
    expect(a.kind).toBe("patch");
    if (a.kind !== "patch" || spaced.kind !== "patch" || moved.kind !== "patch")
      throw new Error("not patches");
    expect(spaced.textKey).toBe(a.textKey);
    expect(moved.textKey).toBe(a.textKey);
    expect(a.files).toEqual(["calc/ops.py"]);
    expect(a.size).toBe(2);
  });

  it("tells different code apart, and keeps a # inside a string", () => {
    const a = normalizePatch(FIX);
    const other = normalizePatch(diff("calc/ops.py", ["        return low"], ["        return value"]));
    const str1 = normalizePatch(diff("calc/ops.py", ["    x = 1"], ['    x = "#a"']));
    const str2 = normalizePatch(diff("calc/ops.py", ["    x = 1"], ['    x = "#b"']));
    if (a.kind !== "patch" || other.kind !== "patch" || str1.kind !== "patch" || str2.kind !== "patch")
      throw new Error("not patches");
    expect(other.textKey).not.toBe(a.textKey);
    expect(str1.textKey).not.toBe(str2.textKey);
  });

  it("orders files so that the same changes in another file order are equal", () => {
    const two = diff("calc/a.py", ["x = 1"], ["x = 2"]) + diff("calc/b.py", ["y = 1"], ["y = 2"]);
    const swapped = diff("calc/b.py", ["y = 1"], ["y = 2"]) + diff("calc/a.py", ["x = 1"], ["x = 2"]);
    const a = normalizePatch(two);
    const b = normalizePatch(swapped);
    if (a.kind !== "patch" || b.kind !== "patch") throw new Error("not patches");
    expect(b.textKey).toBe(a.textKey);
    expect(a.files).toEqual(["calc/a.py", "calc/b.py"]);
  });

  it("drops empty text, non-diffs, whitespace- or comment-only changes and test-only patches, saying why", () => {
    expect(normalizePatch(null)).toEqual({ kind: "empty", reason: "the patch is empty" });
    expect(normalizePatch("  \n")).toEqual({ kind: "empty", reason: "the patch is empty" });
    expect(normalizePatch("I fixed clamp.")).toEqual({
      kind: "empty",
      reason: "the text is not a diff (no file sections)",
    });
    expect(
      normalizePatch(diff("calc/ops.py", ["        return low"], ["        return low  # why"])),
    ).toEqual({
      kind: "empty",
      reason: "the patch changes only whitespace or comments outside the tests",
    });
    expect(normalizePatch(diff("tests/test_ops.py", ["x = 1"], ["x = 2"]))).toEqual({
      kind: "tests_only",
      reason: "the patch only changes tests (tests/test_ops.py)",
      files: ["tests/test_ops.py"],
    });
  });

  it("drops a patch that only adds scratch files in the repository root, and leaves them out of a fix's key", () => {
    const script = newFileDiff("reproduce_bug.py", ["from calc.ops import clamp", "print(clamp(5, 1, 3))"]);
    const settings = newFileDiff(".coveragerc", ["[run]", "branch = True"]);
    expect(normalizePatch(script + settings)).toEqual({
      kind: "scratch_only",
      reason:
        "the patch only adds files in the repository root (reproduce_bug.py, .coveragerc): scripts or settings beside the code, which change none of it",
      files: ["reproduce_bug.py", ".coveragerc"],
    });
    const a = normalizePatch(FIX);
    const withScript = normalizePatch(FIX + script);
    if (a.kind !== "patch" || withScript.kind !== "patch") throw new Error("not patches");
    expect(withScript.textKey).toBe(a.textKey);
    expect(withScript.files).toEqual(["calc/ops.py"]);
    expect(withScript.testFiles).toEqual(["reproduce_bug.py"]);
  });

  it("counts a new module in a folder, a new root setup.py and an edited root script as code", () => {
    for (const patch of [
      newFileDiff("calc/helpers.py", ["def twice(x):", "    return 2 * x"]),
      newFileDiff("setup.py", ["from setuptools import setup", "setup()"]),
      diff("manage.py", ["x = 1"], ["x = 2"]),
    ]) {
      const n = normalizePatch(patch);
      expect(n.kind).toBe("patch");
    }
  });

  it("does not count a patch's own tests towards its key", () => {
    const a = normalizePatch(FIX);
    const withTest = normalizePatch(FIX + diff("calc/tests/test_ops.py", ["x = 1"], ["x = 2"]));
    if (a.kind !== "patch" || withTest.kind !== "patch") throw new Error("not patches");
    expect(withTest.textKey).toBe(a.textKey);
    expect(withTest.testFiles).toEqual(["calc/tests/test_ops.py"]);
  });

  it("reads new and deleted files", () => {
    const created = [
      "diff --git a/calc/new.py b/calc/new.py",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/calc/new.py",
      "@@ -0,0 +1 @@",
      "+X = 1",
      "",
    ].join("\n");
    expect(parsePatch(created)).toEqual([
      {
        path: "calc/new.py",
        created: true,
        deleted: false,
        binary: false,
        hunks: [{ removed: [], added: ["X = 1"], lines: [{ mark: "+", text: "X = 1" }] }],
      },
    ]);
    const deleted = [
      "diff --git a/calc/old.py b/calc/old.py",
      "deleted file mode 100644",
      "--- a/calc/old.py",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-X = 1",
      "",
    ].join("\n");
    expect(parsePatch(deleted)[0]).toMatchObject({ path: "calc/old.py", deleted: true });
  });

  it("withoutFiles drops the named sections and keeps the rest byte for byte", () => {
    const test = diff("tests/test_ops.py", ["x = 1"], ["x = 2"]);
    expect(withoutFiles(FIX + test, (p) => p.startsWith("tests/"))).toBe(FIX);
    expect(withoutFiles(test + FIX, (p) => p.startsWith("tests/"))).toBe(FIX);
  });
});

describe("pythonAstKey", () => {
  it("is equal for sources with the same syntax tree and differs otherwise", async () => {
    const a = await pythonAstKey("def f(a, b):\n    return a + b  # sum\n");
    const b = await pythonAstKey("def f(a,\n      b):\n\n    # add them\n    return (a + b)\n");
    const c = await pythonAstKey("def f(a, b):\n    return a - b\n");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(c).not.toBe(a);
    // parentheses are a node of their own: only layout and comments are ignored
    expect(b).not.toBe(a);
    expect(await pythonAstKey("def f(a,\n      b):\n\n    # add them\n    return a + b\n")).toBe(a);
  });

  it("is null for source that does not parse", async () => {
    expect(await pythonAstKey("def f(:\n  return\n")).toBeNull();
  });
});
