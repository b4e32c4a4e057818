import type { EnvironmentConfig } from "../config/schema.js";
import { openInstance } from "../instance/open.js";
import type { GradeInstance } from "../instance/types.js";
import { type ApplyOutcome, applyModelPatch } from "../swebench/eval/apply-patch.js";
import { statusMapFromLog } from "../swebench/eval/grading.js";
import { parseTestLog } from "../swebench/eval/parsers/index.js";
import { getTestDirectives } from "../swebench/eval/patch-files.js";
import { declarePython } from "../swebench/eval/python-env.js";
import type { TestRunner } from "../swebench/eval/test-spec.js";
import type { SwebenchInstance } from "../swebench/types.js";
import { shellQuote } from "../tools/shell-quote.js";
import type { PublicRow } from "./public-row.js";

/** How one run of tests went: each test's status word, or why there are none. */
export type TestRun =
  | { ok: true; statuses: Record<string, string>; seconds: number }
  | { ok: false; timedOut: boolean; error: string; seconds: number };

/** Seconds a git command or a file operation in the environment may take. */
const GIT_TIMEOUT = 120;

const q = shellQuote;

/**
 * One instance opened for selection (`openInstance`'s `grade` use, the repository at the base
 * commit), and what selection does in it: reset the work tree, apply a candidate, read and write
 * repository files, list and search the test files, run tests with the repository's own test
 * command and read the log with its parser. The row it is opened with carries no hidden tests.
 */
export class Workbench {
  private constructor(
    private readonly instance: GradeInstance,
    private readonly row: PublicRow,
    private readonly runner: TestRunner,
    private readonly prelude: string[],
  ) {}

  static async open(
    row: PublicRow,
    o: {
      environment: EnvironmentConfig;
      reposDir?: string;
      runId: string;
      runner: TestRunner;
      timeout: number;
    },
  ): Promise<Workbench> {
    // openInstance reads the repository, commit, version and image fields; the hidden ones are blank.
    const opened = await openInstance(o.environment, row as SwebenchInstance, "grade", {
      reposDir: o.reposDir,
      runId: o.runId,
      testTimeout: o.timeout,
    });
    try {
      const lines = opened.hostPython
        ? (
            await declarePython(
              opened.env,
              opened.repoDir,
              opened.scratchDir,
              o.runner.python,
              opened.hostDir,
            )
          ).lines
        : [];
      return new Workbench(opened, row, o.runner, [...lines, ...opened.activate]);
    } catch (err) {
      await opened.close().catch(() => {});
      throw err;
    }
  }

  private exec(command: string, timeout = GIT_TIMEOUT) {
    return this.instance.env.exec(command, { cwd: this.instance.repoDir, timeout });
  }

  /** Puts the work tree back to the base commit (changes and new files gone). */
  async reset(): Promise<void> {
    const r = await this.exec("git checkout -q -- . && git clean -fdq");
    if (r.returncode !== 0)
      throw new Error(`cannot reset the work tree to the base commit: ${r.output.trim()}`);
  }

  /** Applies `patch` as the harness does (its fallback chain). */
  async apply(patch: string): Promise<ApplyOutcome> {
    const path = `${this.instance.scratchDir}/select-candidate.diff`;
    await this.instance.env.writeFile(path, patch);
    return applyModelPatch(this.instance.env, this.instance.repoDir, path, "4.1", GIT_TIMEOUT);
  }

  /** A repository file's text, or null when it does not exist. */
  async readRepoFile(path: string): Promise<string | null> {
    try {
      return (await this.instance.env.readFile(`${this.instance.repoDir}/${path}`)).toString("utf8");
    } catch {
      return null;
    }
  }

  async writeRepoFile(path: string, text: string): Promise<void> {
    await this.instance.env.writeFile(`${this.instance.repoDir}/${path}`, text);
  }

  /** The files git tracks at the base commit. */
  async trackedFiles(): Promise<string[]> {
    const r = await this.exec("git ls-files -z");
    if (r.returncode !== 0) throw new Error(`git ls-files failed: ${r.output.trim()}`);
    return r.output.split("\0").filter(Boolean);
  }

  /** Tracked files matching the pathspecs (`*test*.py`) that hold a line matching the extended regular expression `pattern`. */
  async filesMatching(pattern: string, pathspecs: string[]): Promise<string[]> {
    const r = await this.exec(`git grep -l -E -e ${q(pattern)} -- ${pathspecs.map(q).join(" ")}`);
    // git grep exits 1 when nothing matches
    if (r.returncode > 1) throw new Error(`git grep failed: ${r.output.trim()}`);
    return r.output.split("\n").filter(Boolean);
  }

  /**
   * Runs the repository's test command on `files` (test directives as the harness makes them from
   * paths), at most `timeout` seconds, and reads the log with the repository's parser.
   */
  async runTests(files: string[], timeout: number): Promise<TestRun> {
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 100) / 10;
    const header = files.map((f) => `diff --git a/${f} b/${f}`).join("\n");
    const directives = getTestDirectives(this.row.repo, header);
    const script = [
      "#!/bin/bash",
      "set -uxo pipefail",
      ...this.prelude,
      `cd ${q(this.instance.repoDir)}`,
      ...this.runner.evalCommands,
      ": '>>>>> Start Test Output'",
      [this.runner.testCmd, ...directives.map(q)].join(" "),
      ": '>>>>> End Test Output'",
      "",
    ].join("\n");
    const path = `${this.instance.scratchDir}/select-tests.sh`;
    await this.instance.env.writeFile(path, script);
    const r = await this.exec(`/bin/bash ${q(path)}`, timeout);
    if (r.timedOut)
      return {
        ok: false,
        timedOut: true,
        error: `the tests ran past ${timeout} s and were stopped`,
        seconds: seconds(),
      };
    let found: ReturnType<typeof statusMapFromLog>;
    try {
      found = statusMapFromLog(r.output, (t: string) => parseTestLog(this.runner.logParser, t), "4.1");
    } catch (err) {
      return {
        ok: false,
        timedOut: false,
        error: `the test log could not be parsed: ${(err as Error).message}`,
        seconds: seconds(),
      };
    }
    if (!found.found || found.map.size === 0) {
      const last = r.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
      return {
        ok: false,
        timedOut: false,
        error: `no test results in the log (exit ${r.returncode}${found.reason ? `; ${found.reason}` : ""}): ${last}`,
        seconds: seconds(),
      };
    }
    return { ok: true, statuses: Object.fromEntries(found.map), seconds: seconds() };
  }

  close(): Promise<void> {
    return this.instance.close();
  }
}
