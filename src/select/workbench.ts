import type { EnvironmentConfig } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { type ApplyOutcome, applyModelPatch } from "../grading/apply-patch.js";
import { statusMapFromLog } from "../grading/grading.js";
import { parseTestLog } from "../grading/parsers/index.js";
import { getTestDirectives } from "../grading/patch-files.js";
import { declarePython } from "../grading/python-env.js";
import type { TestRunner } from "../grading/test-spec.js";
import { openInstance } from "../instance/open.js";
import type { GradeInstance } from "../instance/types.js";
import { shellQuote } from "../util/shell-quote.js";
import { EXAMPLES_DRIVER, type ExampleOutputs, type ExamplesInput, parseExampleOutputs } from "./examples.js";
import type { PublicRow } from "./public-row.js";

/**
 * How one run of tests went: each test's status word, or why there are none; `seconds` of wall
 * clock and `cpuSeconds` the run's processes used (what the budget counts).
 */
export type TestRun =
  | { ok: true; statuses: Record<string, string>; seconds: number; cpuSeconds: number }
  | { ok: false; timedOut: boolean; error: string; seconds: number; cpuSeconds: number };

/** The limits of one test run: CPU seconds of each test process (`ulimit -t`) and wall-clock seconds of the whole run. */
export interface RunLimits {
  cpu: number;
  wall: number;
}

/** CPU seconds of the children in the output of bash's `times` (its second line: user, then system). */
export function childrenCpuSeconds(times: string): number | null {
  const line = times.trim().split("\n")[1];
  const parts = [...(line ?? "").matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) return null;
  return Math.round(parts.reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0) * 10) / 10;
}

/** Seconds a git command or a file operation in the environment may take. */
const GIT_TIMEOUT = 120;

const q = shellQuote;

/** Bytes of one repository file selection reads at most (for its syntax-tree key). */
export const MAX_REPO_FILE = 4 * 1024 * 1024;

/** Bytes of the CPU times file at most (bash's `times`: two short lines). */
const MAX_TIMES_FILE = 4096;

/** A file selection read: its text, missing, or why it was not read. */
export type FileRead = { text: string } | { missing: true } | { refused: string };

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
    private readonly runner: TestRunner | undefined,
    private readonly prelude: string[],
  ) {}

  static async open(
    row: PublicRow,
    o: {
      environment: EnvironmentConfig;
      reposDir?: string;
      /** Where a checkout is made (local, bwrap); default the system temp folder. */
      workRoot?: string;
      runId: string;
      /** How the tests run; without one the workbench applies and reads patches only. */
      runner?: TestRunner;
      timeout: number;
    },
  ): Promise<Workbench> {
    // openInstance reads the repository, commit, version and image fields; the hidden ones are blank.
    const opened = await openInstance(o.environment, row as SwebenchInstance, "grade", {
      reposDir: o.reposDir,
      workRoot: o.workRoot,
      runId: o.runId,
      testTimeout: o.timeout,
    });
    try {
      const lines =
        opened.hostPython && o.runner
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

  /**
   * Puts the work tree back to the base commit: changes, new files and ignored or excluded files
   * gone (`clean -x`). Only for work trees where no candidate's code ran: test runs get a fresh
   * workbench each (execution.ts), since the tests may have written `.git` itself.
   */
  async reset(): Promise<void> {
    const r = await this.exec("git checkout -q -- . && git clean -ffdxq");
    if (r.returncode !== 0)
      throw new Error(`cannot reset the work tree to the base commit: ${r.output.trim()}`);
  }

  /** Applies `patch` as the harness does (its fallback chain). */
  async apply(patch: string): Promise<ApplyOutcome> {
    const path = `${this.instance.scratchDir}/select-candidate.diff`;
    await this.instance.env.writeFile(path, patch);
    return applyModelPatch(this.instance.env, this.instance.repoDir, path, "4.1", GIT_TIMEOUT);
  }

  /**
   * A repository file's text (at most {@link MAX_REPO_FILE} bytes), `missing`, or why it was not
   * read: only a regular file inside the repository is read, never a symbolic link (a patch may add
   * one to `/dev/zero` or a host file), a device or a pipe.
   */
  readRepoFile(path: string): Promise<FileRead> {
    return this.readRegular(this.instance.repoDir, path, MAX_REPO_FILE);
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
   * paths) under `limits` (each test process at most `cpu` CPU seconds, the run at most `wall`
   * seconds), and reads the log with the repository's parser.
   */
  async runTests(files: string[], limits: RunLimits): Promise<TestRun> {
    const runner = this.runner;
    if (!runner) throw new Error("no test command for this instance: tests cannot run");
    const header = files.map((f) => `diff --git a/${f} b/${f}`).join("\n");
    const directives = getTestDirectives(this.row.repo, header);
    const r = await this.runLimited(
      [...runner.evalCommands, ": '>>>>> Start Test Output'"],
      [runner.testCmd, ...directives.map(q)].join(" "),
      [": '>>>>> End Test Output'"],
      limits,
    );
    if (!r.ok) return r;
    let found: ReturnType<typeof statusMapFromLog>;
    try {
      found = statusMapFromLog(r.output, (t: string) => parseTestLog(runner.logParser, t), "4.1");
    } catch (err) {
      return {
        ...r.spent,
        ok: false,
        timedOut: false,
        error: `the test log could not be parsed: ${(err as Error).message}`,
      };
    }
    if (!found.found || found.map.size === 0) {
      const last = r.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
      return {
        ...r.spent,
        ok: false,
        timedOut: false,
        error: `no test results in the log (exit ${r.returncode}${found.reason ? `; ${found.reason}` : ""}): ${last}`,
      };
    }
    return { ...r.spent, ok: true, statuses: Object.fromEntries(found.map) };
  }

  /**
   * Runs the examples driver (examples.ts) on `examples` with the environment's Python, hash
   * seeds fixed, under `limits`; what they printed, or why there is nothing.
   */
  async runExamples(
    input: ExamplesInput,
    limits: RunLimits,
  ): Promise<
    | { ok: true; outputs: ExampleOutputs; cpuSeconds: number }
    | { ok: false; error: string; cpuSeconds: number }
  > {
    const driver = `${this.instance.scratchDir}/select-examples.py`;
    const inputPath = `${this.instance.scratchDir}/select-examples.json`;
    await this.instance.env.writeFile(driver, EXAMPLES_DRIVER);
    await this.instance.env.writeFile(inputPath, JSON.stringify(input));
    const before = this.runner ? this.runner.evalCommands : [];
    const r = await this.runLimited(
      before,
      `PYTHONHASHSEED=0 python ${q(driver)} ${q(inputPath)}`,
      [],
      limits,
    );
    if (!r.ok) return { ok: false, error: r.error, cpuSeconds: r.cpuSeconds };
    const outputs = parseExampleOutputs(r.output, input.examples.length);
    if (!outputs) {
      const last = r.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
      return {
        ok: false,
        error: `the examples gave no result (exit ${r.returncode}): ${last}`,
        cpuSeconds: r.spent.cpuSeconds,
      };
    }
    return { ok: true, outputs, cpuSeconds: r.spent.cpuSeconds };
  }

  /**
   * Runs `command` in the repository after the prelude and `before`, each process under the CPU
   * limit and the whole under the wall-clock one, then `after`; says what it printed and the CPU
   * seconds the run's processes used (bash's `times`, written beside the script).
   */
  private async runLimited(
    before: string[],
    command: string,
    after: string[],
    limits: RunLimits,
  ): Promise<
    | { ok: true; output: string; returncode: number; spent: { seconds: number; cpuSeconds: number } }
    | (TestRun & { ok: false })
  > {
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 100) / 10;
    const cpuFile = `${this.instance.scratchDir}/select-cpu.txt`;
    const cpu = Math.max(1, Math.ceil(limits.cpu));
    const script = [
      "#!/bin/bash",
      "set -uxo pipefail",
      ...this.prelude,
      ...this.freshHome(),
      `cd ${q(this.instance.repoDir)}`,
      ...before,
      `ulimit -t ${cpu}`,
      command,
      "rc=$?",
      ...after,
      `times > ${q(cpuFile)}`,
      'exit "$rc"',
      "",
    ].join("\n");
    const path = `${this.instance.scratchDir}/select-run.sh`;
    await this.instance.env.writeFile(path, script);
    await this.instance.env.exec(`rm -f ${q(cpuFile)}`, { timeout: GIT_TIMEOUT });
    const wall = Math.max(1, Math.ceil(limits.wall));
    const r = await this.exec(`/bin/bash ${q(path)}`, wall);
    const times = await this.readRegular(this.instance.scratchDir, "select-cpu.txt", MAX_TIMES_FILE);
    const used = "text" in times ? childrenCpuSeconds(times.text) : null;
    // a run stopped by the wall clock wrote no times: it is counted as having used its CPU limit or its wall time, the smaller
    const spent = { seconds: seconds(), cpuSeconds: used ?? Math.min(cpu, seconds()) };
    if (r.timedOut)
      return {
        ...spent,
        ok: false,
        timedOut: true,
        error: `the tests ran past ${wall} s of wall-clock time and were stopped`,
      };
    // Stopped at the CPU limit: the kernel sends SIGXCPU (then SIGKILL) to the test process, and
    // the command fails. Its exit status depends on who waited for that process (the shell gives
    // 128+24, sympy's bin/test passes its child's death on as 256-24), so the CPU seconds decide:
    // a failing command that used its whole limit was stopped, and what it printed is partial.
    if (r.returncode !== 0 && spent.cpuSeconds >= cpu - 1)
      return {
        ...spent,
        ok: false,
        timedOut: true,
        error: `the tests used more than ${cpu} CPU seconds and were stopped`,
      };
    return { ok: true, output: r.output, returncode: r.returncode, spent };
  }

  /**
   * `root/rel` as text when it is a regular file whose real path is that path (no symbolic link on
   * the way, checked in the environment, as the environment sees it) of at most `cap` bytes; else
   * `missing`, or `refused` in words. The read itself is capped too, so a file swapped after the
   * check costs at most `cap` bytes.
   */
  private async readRegular(root: string, rel: string, cap: number): Promise<FileRead> {
    const path = `${root}/${rel}`;
    const check = [
      `p=${q(path)}`,
      'if [ -L "$p" ]; then printf "symlink %s\\n" "$(readlink -- "$p" | head -c 200 | tr -d "\\n")"; exit 0; fi',
      'if [ ! -e "$p" ]; then echo missing; exit 0; fi',
      'if [ ! -f "$p" ]; then echo other; exit 0; fi',
      `want="$(cd -P -- ${q(root)} && pwd)/"${q(rel)}`,
      'real=$(realpath -e -- "$p")',
      'if [ "$real" != "$want" ]; then printf "outside %s\\n" "$(printf %s "$real" | head -c 200)"; exit 0; fi',
      "echo regular",
    ].join("\n");
    const r = await this.instance.env.exec(check, { timeout: GIT_TIMEOUT });
    const said = r.output.trim().split("\n").at(-1) ?? "";
    if (r.returncode !== 0 || said === "")
      return { refused: `${rel} could not be checked: ${r.output.trim().slice(0, 200)}` };
    if (said === "missing") return { missing: true };
    if (said.startsWith("symlink "))
      return {
        refused: `${rel} is a symbolic link (to ${JSON.stringify(said.slice(8))}); selection reads regular files only`,
      };
    if (said === "other")
      return {
        refused: `${rel} is not a regular file (a directory, device, socket or pipe); selection reads regular files only`,
      };
    if (said.startsWith("outside "))
      return {
        refused: `${rel} leads through a symbolic link to ${JSON.stringify(said.slice(8))}; selection reads regular files only`,
      };
    let bytes: Buffer;
    try {
      bytes = await this.instance.env.readFile(path, { maxBytes: cap });
    } catch (err) {
      return { refused: `${rel} could not be read: ${(err as Error).message}` };
    }
    if (bytes.length > cap)
      return { refused: `${rel} is larger than ${cap} bytes; selection reads files up to that size` };
    return { text: bytes.toString("utf8") };
  }

  /**
   * On the host's Python (local, bwrap): a HOME and TMPDIR of this workbench's own (its scratch
   * folder is made for it), so nothing a candidate's tests leave in them reaches another
   * candidate; packages installed with `pip install --user` stay importable (PYTHONUSERBASE).
   * Containers are fresh for each workbench already.
   */
  private freshHome(): string[] {
    if (!this.instance.hostPython) return [];
    const dir = this.instance.scratchDir;
    return [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      'export PYTHONUSERBASE="${PYTHONUSERBASE:-$HOME/.local}"',
      `export HOME=${q(`${dir}/select-home`)} TMPDIR=${q(`${dir}/select-tmp`)}`,
      'mkdir -p "$HOME" "$TMPDIR"',
    ];
  }

  close(): Promise<void> {
    return this.instance.close();
  }
}
