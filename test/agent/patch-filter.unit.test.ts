import { describe, expect, it } from "vitest";
import { cleanPatch, isBuildArtifact, samePatch } from "../../src/agent/patch-filter.js";

const FIX = [
  "diff --git a/calc.py b/calc.py",
  "index 1111111..2222222 100644",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,2 +1,2 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  "",
].join("\n");

const PYC = [
  "diff --git a/__pycache__/calc.cpython-311.pyc b/__pycache__/calc.cpython-311.pyc",
  "new file mode 100644",
  "index 0000000..3333333",
  "Binary files /dev/null and b/__pycache__/calc.cpython-311.pyc differ",
  "",
].join("\n");

const BUILD = [
  "diff --git a/build/out.txt b/build/out.txt",
  "new file mode 100644",
  "index 0000000..4444444",
  "--- /dev/null",
  "+++ b/build/out.txt",
  "@@ -0,0 +1 @@",
  "+built",
  "",
].join("\n");

const TRACKED_BUILD = BUILD.replace(
  "new file mode 100644\nindex 0000000..4444444",
  "index 5555555..4444444",
).replace("--- /dev/null", "--- a/build/out.txt");

describe("cleanPatch", () => {
  it("leaves out binary sections without content and new build artifacts, and keeps the rest byte for byte", () => {
    expect(cleanPatch(`${PYC}${FIX}${BUILD}`)).toEqual({
      patch: FIX,
      dropped: [
        { path: "__pycache__/calc.cpython-311.pyc", reason: "binary" },
        { path: "build/out.txt", reason: "build artifact" },
      ],
    });
  });

  it("keeps a change to a tracked file under build/, a text that is no diff, and an empty patch", () => {
    expect(cleanPatch(`${FIX}${TRACKED_BUILD}`)).toEqual({ patch: `${FIX}${TRACKED_BUILD}`, dropped: [] });
    expect(cleanPatch("I changed nothing.\n")).toEqual({ patch: "I changed nothing.\n", dropped: [] });
    expect(cleanPatch("")).toEqual({ patch: "", dropped: [] });
  });

  it("keeps a binary change that carries its content (git diff --binary)", () => {
    const png = [
      "diff --git a/docs/logo.png b/docs/logo.png",
      "new file mode 100644",
      "index 0000000..6666666",
      "GIT binary patch",
      "literal 3",
      "KcmZ?wwPOGP0R#Xr",
      "",
      "literal 0",
      "HcmV?d00001",
      "",
      "",
    ].join("\n");
    expect(cleanPatch(`${FIX}${png}`)).toEqual({ patch: `${FIX}${png}`, dropped: [] });
  });

  it("reads a quoted path (a name with a space)", () => {
    const quoted = PYC.replaceAll("__pycache__/calc.cpython-311.pyc", '"__pycache__/my calc.pyc"').replace(
      'a/"__pycache__/my calc.pyc" b/"__pycache__/my calc.pyc"',
      '"a/__pycache__/my calc.pyc" "b/__pycache__/my calc.pyc"',
    );
    expect(cleanPatch(`${quoted}${FIX}`)).toEqual({
      patch: FIX,
      dropped: [{ path: "__pycache__/my calc.pyc", reason: "binary" }],
    });
  });
});

describe("isBuildArtifact and samePatch", () => {
  it("matches PATCH_EXCLUDES as git does (* crosses /, build/ and dist/ at the top only)", () => {
    for (const p of [
      "a/b/__pycache__/x.pyc",
      "x.pyo",
      "pkg/_ext.so",
      "pkg.egg-info/PKG-INFO",
      "web/node_modules/a.js",
      "build/x/y",
      "dist/a.whl",
    ])
      expect(isBuildArtifact(p), p).toBe(true);
    for (const p of ["src/build/x.py", "pkg/dist/y.py", "calc.py", "x.pycx", "docs/so.md"])
      expect(isBuildArtifact(p), p).toBe(false);
  });

  it("compares patches without index lines and trailing white space", () => {
    expect(samePatch(FIX, FIX.replace("index 1111111..2222222", "index abcdef0..1234567"))).toBe(true);
    expect(samePatch(FIX, `${FIX}\n\n`)).toBe(true);
    expect(samePatch(FIX, FIX.replace("a + b", "b + a"))).toBe(false);
    expect(samePatch(FIX, "")).toBe(false);
  });
});
