import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/** The Python the grading tests run pytest with (test/support/swebench-command.ts, test/select). */
export const TEST_PYTHON = "/usr/bin/python3";

/** One test file of the run: its path from the repository root, and how many of its tests were skipped. */
export interface RunFile {
  path: string;
  skipped: number;
  /** Whether the file skips tests when pytest is missing (it calls havePytest). */
  needsPytest: boolean;
}

/**
 * The note the suite ends with when pytest is missing: which files skipped tests for it, how
 * many, and how to have them run. Null when pytest is there or nothing was skipped for it.
 */
export function pytestSkipNote(files: RunFile[], pytestPresent: boolean): string | null {
  if (pytestPresent) return null;
  const hit = files.filter((f) => f.needsPytest && f.skipped > 0).sort((a, b) => (a.path < b.path ? -1 : 1));
  if (hit.length === 0) return null;
  const total = hit.reduce((n, f) => n + f.skipped, 0);
  return (
    `${total} test${total === 1 ? " was" : "s were"} skipped because ${TEST_PYTHON} -m pytest is missing ` +
    "(the grading and selection tests run the repositories' own tests with it):\n" +
    hit.map((f) => `  ${f.path}: ${f.skipped} skipped\n`).join("") +
    "Install Debian's python3-pytest (sudo apt-get install python3-pytest) to run them.\n"
  );
}

/** Whether `python3 -m pytest` runs here. */
export function pytestPresent(): boolean {
  return spawnSync(TEST_PYTHON, ["-m", "pytest", "--version"], { stdio: "ignore" }).status === 0;
}

/** Whether `python3 -m pytest` runs here: the grading and selection tests skip without it (the reporter looks for `havePytest(`). */
export const havePytest = pytestPresent;

/** A vitest reporter that prints `pytestSkipNote` after the summary (vitest.config.ts). */
export default class PytestSkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map((m) => {
      let source = "";
      try {
        source = readFileSync(m.moduleId, "utf8");
      } catch {}
      return {
        path: m.relativeModuleId,
        skipped: [...m.children.allTests("skipped")].length,
        needsPytest: source.includes("havePytest("),
      };
    });
    if (!files.some((f) => f.needsPytest && f.skipped > 0)) return;
    const note = pytestSkipNote(files, pytestPresent());
    if (note) process.stdout.write(`\n${note}`);
  }
}
