import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { CALC_OPS, CALC_TEST_OPS, diffOf as diffOfEdit, fixtureGit } from "../support/calc-fixture.js";

/**
 * A small Python repository built with real git (`acme__calc`: `calc/ops.py` with a clamp bug and
 * its existing tests in `tests/test_ops.py`), and candidate patches for it: right ones written
 * three ways, one that breaks a passing test, one under which the tests hang, one that does not
 * apply, one that only touches tests.
 */
export interface SelectFixture {
  reposDir: string;
  baseCommit: string;
  /** `return high` in the branch above the high bound. */
  good: string;
  /** `good` with other spacing and a comment. */
  goodSpaced: string;
  /** A different right fix: `return min(value, high)` in that branch. */
  goodOther: string;
  /** Keeps the tests passing but does not fix the issue (`return value`), written two ways. */
  noClamp: string;
  noClampSpaced: string;
  /** Changes `add` without changing what it does (`b + a`), written two ways: the clamp bug stays. */
  noop: string;
  noopSpaced: string;
  /** Drops the low bound: `test_clamp_low`, which passes at the base commit, fails. */
  breaksLow: string;
  breaksLowSpaced: string;
  /** Makes importing calc.ops sleep for 10 minutes. */
  hangs: string;
  /** Makes importing calc.ops spin on the CPU for 10 minutes. */
  spins: string;
  /** Context that is not in the file. */
  stale: string;
  testsOnly: string;
  /** Only adds a script in the repository root that prints what clamp returns (an agent's reproduction). */
  scratch: string;
}

/** The calc fixture's tests and one more passing test of clamp. */
const TEST_OPS = `${CALC_TEST_OPS}

def test_clamp_inside():
    assert clamp(4, 0, 10) == 4
`;

/** The diff of `path` rewritten to `text` in the clone (then put back to the base commit). */
function diffOf(clone: string, path: string, text: string): string {
  return diffOfEdit(clone, () => writeFileSync(join(clone, path), text));
}

export function buildSelectFixture(root: string): SelectFixture {
  const reposDir = join(root, "repos");
  const clone = join(reposDir, "acme__calc");
  mkdirSync(join(clone, "calc"), { recursive: true });
  mkdirSync(join(clone, "tests"));
  writeFileSync(join(clone, "calc", "__init__.py"), "");
  writeFileSync(join(clone, "calc", "ops.py"), CALC_OPS);
  writeFileSync(join(clone, "tests", "__init__.py"), "");
  writeFileSync(join(clone, "tests", "test_ops.py"), TEST_OPS);
  fixtureGit(clone, "init", "-q", "-b", "main");
  fixtureGit(clone, "add", "-A");
  fixtureGit(clone, "commit", "-qm", "calc with a clamp bug");
  const baseCommit = fixtureGit(clone, "rev-parse", "HEAD").trim();
  const ops = "calc/ops.py";
  const fixBranch = (line: string) =>
    CALC_OPS.replace("        return low\n    return value", `${line}\n    return value`);
  return {
    reposDir,
    baseCommit,
    good: diffOf(clone, ops, fixBranch("        return high")),
    goodSpaced: diffOf(clone, ops, fixBranch("        return  high    # the upper bound")),
    goodOther: diffOf(clone, ops, fixBranch("        return min(value, high)")),
    noClamp: diffOf(clone, ops, fixBranch("        return value")),
    noClampSpaced: diffOf(clone, ops, fixBranch("        return value  # as given")),
    noop: diffOf(clone, ops, CALC_OPS.replace("    return a + b", "    return b + a")),
    noopSpaced: diffOf(clone, ops, CALC_OPS.replace("    return a + b", "    return b  +  a  # same sum")),
    breaksLow: diffOf(
      clone,
      ops,
      CALC_OPS.replace("    if value < low:\n        return low\n", "").replace(
        "        return low\n    return value",
        "        return high\n    return value",
      ),
    ),
    breaksLowSpaced: diffOf(
      clone,
      ops,
      CALC_OPS.replace("    if value < low:\n        return low\n", "    # no low bound\n").replace(
        "        return low\n    return value",
        "        return high\n    return value",
      ),
    ),
    hangs: diffOf(clone, ops, `import time\n\ntime.sleep(600)\n\n\n${fixBranch("        return high")}`),
    spins: diffOf(
      clone,
      ops,
      `import time\n\n_end = time.time() + 600\nwhile time.time() < _end:\n    pass\n\n\n${fixBranch("        return high")}`,
    ),
    stale: [
      `diff --git a/${ops} b/${ops}`,
      `--- a/${ops}`,
      `+++ b/${ops}`,
      "@@ -20,3 +20,3 @@ def clamp(value, minimum, maximum):",
      "     if value > maximum:",
      "-        return minimum",
      "+        return maximum",
      "     return value",
      "",
    ].join("\n"),
    testsOnly: diffOf(
      clone,
      "tests/test_ops.py",
      `${TEST_OPS}\n\ndef test_more():\n    assert add(1, 1) == 2\n`,
    ),
    scratch: diffOfEdit(clone, () =>
      writeFileSync(join(clone, "reproduce_bug.py"), "from calc.ops import clamp\nprint(clamp(15, 0, 10))\n"),
    ),
  };
}

/** The row of the fixture's instance. `hidden` replaces the hidden fields (tests poison them). */
export function selectRow(f: SelectFixture, hidden: Partial<SwebenchInstance> = {}): SwebenchInstance {
  return {
    repo: "acme/calc",
    instance_id: "acme__calc-1",
    base_commit: f.baseCommit,
    patch: f.good,
    test_patch: "",
    problem_statement: "clamp(15, 0, 10) returns 0; it should return 10.",
    hints_text: "",
    created_at: "2026-12-01T00:00:00Z",
    version: "0.1",
    FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_clamp_high"]),
    PASS_TO_PASS: JSON.stringify(["tests/test_ops.py::test_clamp_low"]),
    environment_setup_commit: f.baseCommit,
    test_cmd: "python -m pytest -rA -p no:cacheprovider",
    log_parser: "pytest",
    ...hidden,
  };
}

/** A patchloop-1 trajectory holding `patch` as the attempt's submission. */
export function trajectory(id: string, patch: string, exitStatus = "Submitted"): string {
  return JSON.stringify({
    trajectory_format: "patchloop-1",
    info: {
      exit_status: exitStatus,
      exit_message: null,
      submission: patch,
      instance_id: id,
      model_name: "openai/m",
    },
    messages: [],
  });
}

/**
 * Registers the hooks that build the select fixture in a fresh temp root (named from `prefix`)
 * before the tests and remove the root after them; `root` and `f` are there once `beforeAll` ran.
 */
export function useSelectFixture(prefix: string): { root: string; f: SelectFixture } {
  const x = {} as { root: string; f: SelectFixture };
  beforeAll(() => {
    x.root = mkdtempSync(join(tmpdir(), prefix));
    x.f = buildSelectFixture(x.root);
  });
  afterAll(() => rmSync(x.root, { recursive: true, force: true }));
  return x;
}

/** A run folder under `root` with one attempt folder of instance `id` per patch (attempt-1 first). */
export function runFolderOf(root: string, id: string, patches: string[]): string {
  const dir = mkdtempSync(join(root, "run-"));
  patches.forEach((p, i) => {
    const a = join(dir, id, `attempt-${i + 1}`);
    mkdirSync(a, { recursive: true });
    writeFileSync(join(a, `${id}.traj.json`), trajectory(id, p));
  });
  return dir;
}
