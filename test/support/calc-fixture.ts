import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SwebenchInstance } from "../../src/dataset/types.js";

/**
 * A small Python repository with a real bug (`clamp` returns the low bound for values above the
 * high bound), built with real git, and SWE-bench rows for it: a test patch that modifies one
 * test file and adds another, a gold patch, a wrong patch, a patch that cannot apply, and a test
 * patch whose test hangs.
 */
export interface CalcFixture {
  /** `--repos-dir`: holds `acme__calc`. */
  reposDir: string;
  clone: string;
  baseCommit: string;
  goldPatch: string;
  wrongPatch: string;
  stalePatch: string;
  testPatch: string;
  hangTestPatch: string;
}

/** calc/ops.py at the base commit: `clamp` returns the low bound above the high one. */
export const CALC_OPS = `def add(a, b):
    return a + b


def clamp(value, low, high):
    """Limit value to the range [low, high]."""
    if value < low:
        return low
    if value > high:
        return low
    return value
`;

/** tests/test_ops.py at the base commit. */
export const CALC_TEST_OPS = `from calc.ops import add, clamp


def test_add():
    assert add(2, 3) == 5


def test_clamp_low():
    assert clamp(-4, 0, 10) == 0
`;

/** git in `cwd` with the fixture's author. */
export function fixtureGit(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Fixture", "-c", "user.email=fixture@example.invalid", ...args],
    {
      cwd,
      encoding: "utf8",
    },
  );
}

/** A git diff that creates `path` holding `lines` (written without git, for patches a test makes up). */
export function newFileDiff(path: string, lines: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    "new file mode 100644",
    "--- /dev/null",
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    "",
  ].join("\n");
}

/** A diff of the edits `edit` makes in the clone, which is then put back to the base commit. */
export function diffOf(clone: string, edit: () => void): string {
  edit();
  fixtureGit(clone, "add", "-A");
  const diff = fixtureGit(clone, "diff", "--cached");
  fixtureGit(clone, "reset", "-q", "--hard");
  fixtureGit(clone, "clean", "-qfd");
  return diff;
}

/** Builds the fixture repository under `root`. */
export function buildCalcFixture(root: string): CalcFixture {
  const reposDir = join(root, "repos");
  const clone = join(reposDir, "acme__calc");
  rmSync(clone, { recursive: true, force: true });
  mkdirSync(join(clone, "calc"), { recursive: true });
  mkdirSync(join(clone, "tests"));
  writeFileSync(join(clone, "calc", "__init__.py"), "");
  writeFileSync(join(clone, "calc", "ops.py"), CALC_OPS);
  writeFileSync(join(clone, "tests", "__init__.py"), "");
  writeFileSync(join(clone, "tests", "test_ops.py"), CALC_TEST_OPS);
  writeFileSync(join(clone, "README.md"), "calc\n");
  fixtureGit(clone, "init", "-q", "-b", "main");
  fixtureGit(clone, "add", "-A");
  fixtureGit(clone, "commit", "-qm", "calc with a clamp bug");
  const baseCommit = fixtureGit(clone, "rev-parse", "HEAD").trim();
  const ops = join(clone, "calc", "ops.py");
  const goldPatch = diffOf(clone, () =>
    writeFileSync(
      ops,
      CALC_OPS.replace("        return low\n    return value", "        return high\n    return value"),
    ),
  );
  const wrongPatch = diffOf(clone, () =>
    writeFileSync(ops, CALC_OPS.replace("    if value > high:\n        return low\n", "")),
  );
  const testPatch = diffOf(clone, () => {
    writeFileSync(
      join(clone, "tests", "test_ops.py"),
      `${CALC_TEST_OPS}\n\ndef test_add_negative():\n    assert add(-2, -3) == -5\n`,
    );
    writeFileSync(
      join(clone, "tests", "test_clamp.py"),
      "from calc.ops import clamp\n\n\ndef test_clamp_high():\n    assert clamp(15, 0, 10) == 10\n",
    );
    writeFileSync(join(clone, "README.md"), "calc, with tests\n");
  });
  const hangTestPatch = diffOf(clone, () => {
    writeFileSync(
      join(clone, "tests", "test_hang.py"),
      "import time\n\n\ndef test_hang():\n    time.sleep(600)\n",
    );
  });
  const stalePatch = [
    "diff --git a/calc/ops.py b/calc/ops.py",
    "--- a/calc/ops.py",
    "+++ b/calc/ops.py",
    "@@ -20,3 +20,3 @@ def clamp(value, minimum, maximum):",
    "     if value > maximum:",
    "-        return minimum",
    "+        return maximum",
    "     return value",
    "",
  ].join("\n");
  return { reposDir, clone, baseCommit, goldPatch, wrongPatch, stalePatch, testPatch, hangTestPatch };
}

/** SWE-bench rows for the fixture: `acme__calc-<n>`, all at the base commit. */
export function calcRow(f: CalcFixture, n: number, extra: Partial<SwebenchInstance> = {}): SwebenchInstance {
  return {
    repo: "acme/calc",
    instance_id: `acme__calc-${n}`,
    base_commit: f.baseCommit,
    patch: f.goldPatch,
    test_patch: f.testPatch,
    problem_statement: "clamp(15, 0, 10) returns 0; it should return 10.",
    hints_text: "",
    created_at: "2026-11-29T00:00:00Z",
    version: "0.1",
    FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_clamp_high"]),
    PASS_TO_PASS: JSON.stringify([
      "tests/test_ops.py::test_add",
      "tests/test_ops.py::test_clamp_low",
      "tests/test_ops.py::test_add_negative",
    ]),
    environment_setup_commit: f.baseCommit,
    ...extra,
  };
}
