import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import type { FakeBehaviour } from "../../src/testing/fake-llm-server.js";

/**
 * SWE-bench-format instances made here: small Python repositories (real git) in which every
 * instance has its own base commit with a bug, a gold patch that fixes it, and a test patch that
 * adds the test that fails before the fix (FAIL_TO_PASS) next to one that always passes
 * (PASS_TO_PASS). Every bug is the line `    return a - b  # BUG` in `pkg<r>/op<n>.py`, so
 * `FIX_COMMAND` fixes any of them and its diff equals the gold patch.
 */
export interface FixtureInstances {
  /** The `--repos-dir`: one clone per repository, `acme__lib<r>`. */
  reposDir: string;
  rows: SwebenchInstance[];
  /** The rows as a .jsonl dataset file. */
  datasetPath: string;
}

/** Fixes the bug of any fixture instance (run in its repository root). */
export const FIX_COMMAND = "sed -i 's/ - b  # BUG$/ + b/' $(git grep -l -e '# BUG$')";

/** The submit command (docs/protocols.md, "Submission"). */
export const SUBMIT_COMMAND = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

/**
 * One bash command a stand-in model can send at every step, the same text each time: it counts its
 * calls in the repository's .git folder; call 1 fixes the bug, call 2 shows the diff stat, call 3
 * submits. An OpenAI-compatible fake server can answer every request with it, in any order across
 * instances.
 */
export const STEPWISE_COMMAND = [
  "n=$(( $(cat .git/fixture_steps 2>/dev/null || echo 0) + 1 )); echo $n > .git/fixture_steps",
  `if [ $n -eq 1 ]; then ${FIX_COMMAND}; echo fixed; elif [ $n -eq 2 ]; then git diff --stat; else ${SUBMIT_COMMAND}; fi`,
].join("; ");

/** A fake server's reply sending STEPWISE_COMMAND (100 prompt and 10 completion tokens), after `delayMs`. */
export function stepwiseReply(delayMs?: number): FakeBehaviour {
  return {
    type: "reply",
    content: "step",
    toolCalls: [{ name: "bash", arguments: { command: STEPWISE_COMMAND } }],
    usage: { prompt_tokens: 100, completion_tokens: 10 },
    ...(delayMs !== undefined ? { delayMs } : {}),
  };
}

/** The model calls STEPWISE_COMMAND needs to submit. */
export const STEPWISE_CALLS = 3;

export const PYTEST_CMD = "/usr/bin/python3 -m pytest -rA -p no:cacheprovider";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Fixture",
  GIT_AUTHOR_EMAIL: "f@example.invalid",
  GIT_COMMITTER_NAME: "Fixture",
  GIT_COMMITTER_EMAIL: "f@example.invalid",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** The diff of `files` written on the current commit; the work tree is put back afterwards. */
function diffOf(repo: string, files: Record<string, string>): string {
  write(repo, files);
  git(repo, "add", "-A");
  const diff = git(repo, "diff", "--cached");
  git(repo, "reset", "-q", "--hard");
  return diff;
}

function opSource(n: number, fixed: boolean): string {
  return `def add${n}(a, b):\n    """Return the sum of a and b."""\n    return a ${fixed ? "+ b" : "- b  # BUG"}\n`;
}

function testSource(pkg: string, n: number, withNew: boolean): string {
  const base = `from ${pkg}.op${n} import add${n}\n\n\ndef test_zero_${n}():\n    assert add${n}(0, 0) == 0\n`;
  return withNew ? `${base}\n\ndef test_sum_${n}():\n    assert add${n}(2, 3) == 5\n` : base;
}

/** Builds `count` instances spread over `repos` repositories under `root`. */
export function buildFixtureInstances(
  root: string,
  opts: { count?: number; repos?: number } = {},
): FixtureInstances {
  const count = opts.count ?? 4;
  const repoCount = Math.max(1, Math.min(opts.repos ?? 2, count));
  const reposDir = join(root, "repos");
  const roots: string[] = [];
  for (let r = 0; r < repoCount; r++) {
    const repo = join(reposDir, `acme__lib${r}`);
    write(repo, { [`pkg${r}/__init__.py`]: "", "tests/__init__.py": "", "README.md": `lib${r}\n` });
    git(repo, "init", "-q", "-b", "main");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "start");
    roots.push(git(repo, "rev-parse", "HEAD").trim());
  }
  const rows: SwebenchInstance[] = [];
  for (let n = 1; n <= count; n++) {
    const r = (n - 1) % repoCount;
    const repo = join(reposDir, `acme__lib${r}`);
    const pkg = `pkg${r}`;
    git(repo, "checkout", "-q", "--detach", roots[r]);
    write(repo, {
      [`${pkg}/op${n}.py`]: opSource(n, false),
      [`tests/test_op${n}.py`]: testSource(pkg, n, false),
    });
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", `add${n} (with a bug)`);
    const base = git(repo, "rev-parse", "HEAD").trim();
    git(repo, "tag", `base-${n}`);
    const patch = diffOf(repo, { [`${pkg}/op${n}.py`]: opSource(n, true) });
    const testPatch = diffOf(repo, { [`tests/test_op${n}.py`]: testSource(pkg, n, true) });
    rows.push({
      repo: `acme/lib${r}`,
      instance_id: `acme__lib${r}-${n}`,
      base_commit: base,
      patch,
      test_patch: testPatch,
      problem_statement: `Instance acme__lib${r}-${n}: add${n}(2, 3) returns -1 instead of 5.`,
      hints_text: "",
      created_at: "2026-01-01T00:00:00Z",
      version: "1.0",
      FAIL_TO_PASS: JSON.stringify([`tests/test_op${n}.py::test_sum_${n}`]),
      PASS_TO_PASS: JSON.stringify([`tests/test_op${n}.py::test_zero_${n}`]),
      environment_setup_commit: base,
      test_cmd: PYTEST_CMD,
      log_parser: "pytest",
    });
  }
  for (let r = 0; r < repoCount; r++) git(join(reposDir, `acme__lib${r}`), "checkout", "-q", "main");
  const datasetPath = join(root, "dataset.jsonl");
  writeFileSync(datasetPath, `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`);
  return { reposDir, rows, datasetPath };
}
