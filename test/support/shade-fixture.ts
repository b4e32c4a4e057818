import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SwebenchInstance } from "../../src/dataset/types.js";

/**
 * A repository whose package lives under `lib/` (a layout patchloop does not guess), with a real
 * bug and a dependency, and virtual environments of Debian's python3 that the tests grade with:
 * - `good`: the dependency at 1.0, as the tests expect;
 * - `newDep`: the dependency at 2.0, which changed what `unit()` returns (every area test fails);
 * - `shadow`: the dependency at 1.0 and an installed copy of the package itself, already fixed,
 *   which the tests import instead of the work tree's code unless `lib` comes first.
 */
export interface ShadeFixture {
  reposDir: string;
  clone: string;
  baseCommit: string;
  goldPatch: string;
  /** Applies, changes no code: a no-op as far as the tests go. */
  noopPatch: string;
  testPatch: string;
  venvs: { good: string; newDep: string; shadow: string };
  /** The site-packages folder of each venv. */
  site: { good: string; newDep: string; shadow: string };
}

const OPS = `from shadedep import unit


def area(width, height):
    return width * height * unit()


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return low
    return value
`;

const TESTS = `from shade.ops import area, clamp


def test_area():
    assert area(2, 3) == 6


def test_clamp_low():
    assert clamp(-1, 0, 5) == 0
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=F", "-c", "user.email=f@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
  });
}

function diffOf(clone: string, edit: () => void): string {
  edit();
  git(clone, "add", "-A");
  const diff = git(clone, "diff", "--cached");
  git(clone, "reset", "-q", "--hard");
  git(clone, "clean", "-qfd");
  return diff;
}

/** Writes the `shadedep` distribution (package and dist-info) at `version` into a site folder. */
export function installDep(site: string, version: string, unit: number): void {
  rmSync(join(site, "shadedep"), { recursive: true, force: true });
  for (const v of ["1.0", "1.1", "2.0"])
    rmSync(join(site, `shadedep-${v}.dist-info`), { recursive: true, force: true });
  mkdirSync(join(site, "shadedep"), { recursive: true });
  writeFileSync(join(site, "shadedep", "__init__.py"), `def unit():\n    return ${unit}\n`);
  mkdirSync(join(site, `shadedep-${version}.dist-info`));
  writeFileSync(
    join(site, `shadedep-${version}.dist-info`, "METADATA"),
    `Metadata-Version: 2.1\nName: shadedep\nVersion: ${version}\n`,
  );
}

function makeVenv(path: string): string {
  execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", "--system-site-packages", path]);
  return execFileSync(
    join(path, "bin", "python"),
    ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
    {
      encoding: "utf8",
    },
  ).trim();
}

/** Builds the repository and the three venvs under `root`. */
export function buildShadeFixture(root: string): ShadeFixture {
  const reposDir = join(root, "repos");
  const clone = join(reposDir, "acme__shade");
  mkdirSync(join(clone, "lib", "shade"), { recursive: true });
  mkdirSync(join(clone, "tests"));
  writeFileSync(join(clone, "lib", "shade", "__init__.py"), "");
  writeFileSync(join(clone, "lib", "shade", "ops.py"), OPS);
  writeFileSync(join(clone, "tests", "test_ops.py"), TESTS);
  writeFileSync(join(clone, "README.md"), "shade\n");
  git(clone, "init", "-q", "-b", "main");
  git(clone, "add", "-A");
  git(clone, "commit", "-qm", "shade with a clamp bug");
  const baseCommit = git(clone, "rev-parse", "HEAD").trim();
  const fixed = OPS.replace("        return low\n    return value", "        return high\n    return value");
  const goldPatch = diffOf(clone, () => writeFileSync(join(clone, "lib", "shade", "ops.py"), fixed));
  const noopPatch = diffOf(clone, () => writeFileSync(join(clone, "README.md"), "shade, a small library\n"));
  const testPatch = diffOf(clone, () => {
    writeFileSync(
      join(clone, "tests", "test_ops.py"),
      `${TESTS}\n\ndef test_area_square():\n    assert area(4, 4) == 16\n`,
    );
    writeFileSync(
      join(clone, "tests", "test_clamp.py"),
      "from shade.ops import clamp\n\n\ndef test_clamp_high():\n    assert clamp(9, 0, 5) == 5\n",
    );
  });
  const venvs = {
    good: join(root, "venv-good"),
    newDep: join(root, "venv-newdep"),
    shadow: join(root, "venv-shadow"),
  };
  const site = { good: makeVenv(venvs.good), newDep: makeVenv(venvs.newDep), shadow: makeVenv(venvs.shadow) };
  installDep(site.good, "1.0", 1);
  installDep(site.newDep, "2.0", 1000);
  installDep(site.shadow, "1.0", 1);
  mkdirSync(join(site.shadow, "shade"));
  writeFileSync(join(site.shadow, "shade", "__init__.py"), "");
  writeFileSync(join(site.shadow, "shade", "ops.py"), fixed);
  return { reposDir, clone, baseCommit, goldPatch, noopPatch, testPatch, venvs, site };
}

/** The SWE-bench row of the fixture (`acme__shade-1`). */
export function shadeRow(f: ShadeFixture, extra: Partial<SwebenchInstance> = {}): SwebenchInstance {
  return {
    repo: "acme/shade",
    instance_id: "acme__shade-1",
    base_commit: f.baseCommit,
    patch: f.goldPatch,
    test_patch: f.testPatch,
    problem_statement: "clamp(9, 0, 5) returns 0; it should return 5.",
    hints_text: "",
    created_at: "2026-12-01T00:00:00Z",
    version: "1.0",
    FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_clamp_high"]),
    PASS_TO_PASS: JSON.stringify([
      "tests/test_ops.py::test_area",
      "tests/test_ops.py::test_clamp_low",
      "tests/test_ops.py::test_area_square",
    ]),
    environment_setup_commit: f.baseCommit,
    test_cmd: "pytest -rA -p no:cacheprovider",
    log_parser: "pytest",
    ...extra,
  };
}
