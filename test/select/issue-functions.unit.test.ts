import { describe, expect, it } from "vitest";
import { changedFunctionNames, expectedToChange } from "../../src/select/issue-functions.js";

const PATCH = [
  "diff --git a/pkg/basic.py b/pkg/basic.py",
  "--- a/pkg/basic.py",
  "+++ b/pkg/basic.py",
  "@@ -507,7 +507,9 @@ def atoms(self, *types):",
  "         result = set()",
  "-            if isinstance(expr, types):",
  "+            if not expr.args:",
  "@@ -600,3 +602,6 @@ class Basic(object):",
  "+    def _helper(self):",
  "+        return 1",
  "+    def free_names(self):",
  "",
].join("\n");

describe("tests a fix is expected to change", () => {
  it("names the functions and classes a patch's hunk headers and hunks define", () => {
    expect(changedFunctionNames(PATCH)).toEqual(["atoms", "Basic", "free_names"]);
    expect(changedFunctionNames("not a diff\ndef f(): pass")).toEqual([]);
  });

  it("does not count a broken test named after a changed function the issue names", () => {
    const broke = [
      "test_atoms",
      "pkg/tests/test_basic.py::test_atoms_with_types[x]",
      "pkg/tests/test_basic.py:test_free_names",
      "test_atomsphere",
      "test_call",
    ];
    const issue = "`expr.atoms()` should return objects with no args";
    expect(expectedToChange(broke, changedFunctionNames(PATCH), issue)).toEqual([
      "test_atoms",
      "pkg/tests/test_basic.py::test_atoms_with_types[x]",
    ]);
    // the issue does not name it: every broken test counts
    expect(expectedToChange(broke, ["atoms"], "atomsphere is wrong")).toEqual([]);
    // the patch does not change it: every broken test counts
    expect(expectedToChange(broke, ["call_me"], issue)).toEqual([]);
    // a name under 3 characters is too common to count
    expect(expectedToChange(["test_f"], ["f"], "f(x) is wrong")).toEqual([]);
  });
});
