import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { selectRunFolder } from "../../src/select/index.js";
import type { SelectionRecord } from "../../src/select/record.js";
import { CALC_OPS, diffOf } from "../support/calc-fixture.js";
import { describeWithEngine } from "../support/engines.js";
import { havePytest } from "../support/pytest-skips.js";
import { runFolderOf, selectRow, useSelectFixture } from "./fixture.js";

/**
 * Candidates cannot poison each other (issue 41, item 6): each test run of selection gets a
 * workbench of its own (a fresh checkout, temp and home), closed after the run, which ends every
 * process the run started. The hostile candidates below also fix the bug, so that they keep the
 * tests passing themselves; what they plant is meant for the candidates tested after them.
 */

const ID = "acme__calc-1";
const FIXED = CALC_OPS.replace(
  "        return low\n    return value",
  "        return high\n    return value",
);

/** A conftest.py that fails every test it is loaded for. */
const POISON = [
  "import pytest",
  "",
  "",
  "@pytest.fixture(autouse=True)",
  "def _poisoned():",
  '    raise RuntimeError("planted by another candidate")',
  "",
].join("\n");

/**
 * The fix, and on import (while its tests run) a conftest.py in the repository root that git is
 * told to ignore through `.git/info/exclude`: `git clean` without `-x` leaves it in place.
 */
function excludeAttack(): string {
  return [
    "import os as _os",
    "",
    "_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))",
    "try:",
    '    _os.makedirs(_os.path.join(_root, ".git", "info"), exist_ok=True)',
    '    with open(_os.path.join(_root, ".git", "info", "exclude"), "a") as _f:',
    '        _f.write("\\nconftest.py\\n")',
    '    with open(_os.path.join(_root, "conftest.py"), "w") as _f:',
    `        _f.write(${JSON.stringify(POISON)})`,
    "except OSError:",
    "    pass",
    "",
    "",
    FIXED,
  ].join("\n");
}

/**
 * The fix, and on import a detached process (its own session) that for 60 s writes the poisoned
 * conftest.py into every checkout it can see: the one it started in, the sandbox's /testbed, and
 * every selection checkout under `workRoot`; it writes its pid to `pidFile` where it can.
 */
function lingeringAttack(workRoot: string, pidFile: string): string {
  const daemon = [
    "import glob, os, time",
    `open(${JSON.stringify(pidFile)}, "w").write(str(os.getpid())) if os.path.isdir(${JSON.stringify(workRoot)}) else None`,
    "here = os.getcwd()",
    "end = time.time() + 60",
    "while time.time() < end:",
    `    for d in glob.glob(${JSON.stringify(`${workRoot}/patchloop-eval-*/repo`)}) + ["/testbed", here]:`,
    "        try:",
    '            if os.path.isdir(d) and not os.path.exists(os.path.join(d, "conftest.py")):',
    `                open(os.path.join(d, "conftest.py"), "w").write(${JSON.stringify(POISON)})`,
    "        except OSError:",
    "            pass",
    "    time.sleep(0.05)",
  ].join("\n");
  return [
    "import subprocess as _sp",
    "import sys as _sys",
    "",
    "_sp.Popen(",
    `    [_sys.executable, "-c", ${JSON.stringify(daemon)}],`,
    "    start_new_session=True,",
    "    stdin=_sp.DEVNULL,",
    "    stdout=_sp.DEVNULL,",
    "    stderr=_sp.DEVNULL,",
    ")",
    "",
    "",
    FIXED,
  ].join("\n");
}

function config(kind: string) {
  return loadConfig({
    configArgs: [
      "swebench",
      `environment.environment_class=${kind}`,
      "run.select.regression.timeout=20",
      "run.select.wall_timeout=20",
      "run.select.examples.enabled=false",
      ...(kind === "bwrap" ? ['environment.env.PYTHONDONTWRITEBYTECODE="1"'] : []),
    ],
    defaultConfig: "swebench",
  }).config;
}

/** Whether `pid` runs (a zombie waiting for a parent that does not reap it has ended). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX] /s.test(stat);
  } catch {
    return false;
  }
};

function suite(kind: "local" | "bwrap") {
  return () => {
    const sf = useSelectFixture(`patchloop-select-iso-${kind}-`);

    const select = async (patches: string[], workRoot?: string): Promise<SelectionRecord> => {
      const run = await selectRunFolder(runFolderOf(sf.root, ID, patches), {
        config: config(kind),
        rows: [selectRow(sf.f)],
        reposDir: sf.f.reposDir,
        python: "/usr/bin/python3",
        ...(workRoot ? { workRoot } : {}),
      });
      return run.records[0];
    };
    const clone = () => join(sf.f.reposDir, "acme__calc");

    it("a file a candidate hides from git through .git/info/exclude does not reach the next candidate's tests", async () => {
      const hostile = diffOf(clone(), () => writeFileSync(join(clone(), "calc", "ops.py"), excludeAttack()));
      const rec = await select([hostile, sf.f.good]);
      expect(rec.problems).toEqual([]);
      expect(rec.regression).toEqual({ files: ["tests/test_ops.py"], passing_at_base: 3 });
      // both fix the bug and break nothing; the smaller patch wins the tie
      expect(rec.candidates.map((c) => [c.source, c.regression?.broke, c.regression?.kept])).toEqual([
        ["attempt-1", [], 3],
        ["attempt-2", [], 3],
      ]);
      expect(rec.selected).toBe(1);
    });

    it("a process a candidate's tests leave running is ended before the next candidate's tests", async () => {
      const workRoot = join(sf.root, "work");
      mkdirSync(workRoot, { recursive: true });
      const pidFile = join(sf.root, "daemon.pid");
      const hostile = diffOf(clone(), () =>
        writeFileSync(join(clone(), "calc", "ops.py"), lingeringAttack(workRoot, pidFile)),
      );
      const rec = await select([hostile, sf.f.good], workRoot);
      expect(rec.problems).toEqual([]);
      expect(rec.candidates.map((c) => [c.source, c.regression?.broke, c.regression?.kept])).toEqual([
        ["attempt-1", [], 3],
        ["attempt-2", [], 3],
      ]);
      expect(rec.selected).toBe(1);
      if (kind === "local") {
        // it started, and it is gone
        const pid = Number(readFileSync(pidFile, "utf8"));
        expect(pid).toBeGreaterThan(0);
        expect(alive(pid)).toBe(false);
      }
    });
  };
}

describe.skipIf(!havePytest())("select keeps candidates apart (local)", suite("local"));
describeWithEngine("bwrap", "select keeps candidates apart (bwrap)", suite("bwrap"));
