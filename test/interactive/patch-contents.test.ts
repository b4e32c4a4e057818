import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workTreeDiff } from "../../src/agent/work-tree-diff.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { describeWithEngine } from "../support/engines.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { BWRAP_UNLIMITED, bash, calcTask, patchloopBranches, runArgs, SUBMIT_COMMAND } from "./fixture.js";
import { BIN } from "./pty.js";

/**
 * A repository and the mess a test run leaves in it: bytecode (one file of it already staged by the
 * agent's own `git add -A`), node_modules, build output, packaging metadata, an extension module, an
 * ignored log; and the real changes: a fix, a new module, a tracked file under build/ changed, a new
 * file in a nested build/ folder.
 */
function messyRepo(): { repo: string; base: string } {
  const repo = join(tempDir(), "proj");
  const base = makeRepo(repo, {
    "pkg/calc.py": "x = 1\n",
    "build/config.txt": "tracked\n",
    ".gitignore": "*.log\n",
  });
  const files: Record<string, string> = {
    "pkg/calc.py": "x = 2\n",
    "pkg/new_module.py": "y = 1\n",
    "build/config.txt": "changed\n",
    "build/lib/out.py": "built\n",
    "docs/build/page.txt": "kept\n",
    "pkg/__pycache__/calc.cpython-311.pyc": "\0\x01",
    "stray.pyc": "\0",
    "node_modules/left-pad/index.js": "module.exports = 1;\n",
    "proj.egg-info/PKG-INFO": "Name: proj\n",
    "pkg/_speedups.so": "\x7fELF",
    "dist/proj-1.0.tar.gz": "\x1f\x8b",
    "run.log": "noise\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  }
  git(repo, "add", "stray.pyc");
  return { repo, base };
}

const WANTED = [
  "diff --git a/build/config.txt b/build/config.txt",
  "diff --git a/docs/build/page.txt b/docs/build/page.txt",
  "diff --git a/pkg/calc.py b/pkg/calc.py",
  "diff --git a/pkg/new_module.py b/pkg/new_module.py",
];

const headers = (patch: string) => patch.match(/^diff --git .*$/gm) ?? [];

describe("what enters the patch", () => {
  it("the submit command, run from a subfolder: changes and new files, never ignored ones or the default list; nothing left staged", () => {
    const { repo, base } = messyRepo();
    const out = execFileSync("bash", ["-c", SUBMIT_COMMAND], { cwd: join(repo, "pkg"), encoding: "utf8" });
    expect(out.split("\n")[0]).toBe("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    const patch = out.slice(out.indexOf("\n") + 1);
    expect(headers(patch)).toEqual(WANTED);
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("");
    // plain git diff text: it applies to a clean checkout of the base commit
    const clean = join(tempDir(), "clean");
    git(dirname(repo), "clone", "-q", repo, clean);
    git(clean, "checkout", "-q", base);
    execFileSync("git", ["apply", "--check", "-"], { cwd: clean, input: patch });
  });

  it("the diff on exit: the same files against the start commit, whatever the agent staged or committed", async () => {
    const { repo, base } = messyRepo();
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "the agent commits");
    writeFileSync(join(repo, "pkg", "later.py"), "z = 3\n");
    const env = createLocalEnvironment({ cwd: repo, warn: () => {} });
    try {
      const patch = await workTreeDiff(env, base);
      expect(headers(patch)).toEqual([
        ...WANTED.slice(0, 3),
        "diff --git a/pkg/later.py b/pkg/later.py",
        WANTED[3],
      ]);
    } finally {
      await env.close();
    }
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("");
  });
});

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describeWithEngine("bwrap", "a worktree in the bwrap sandbox", () => {
  it("git works inside; the repository's own refs are read-only there; the patch leaves out bytecode", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(
      bash(
        "sed -i 's/a - b/a + b/' calc.py && mkdir -p __pycache__ && echo x > __pycache__/calc.pyc && git add -A && " +
          "git status --short && (git branch sneaky 2>/dev/null && echo made-branch || echo no-branch)",
      ),
      bash(SUBMIT_COMMAND),
    );
    const hooksBefore = git(t.repo, "config", "--list", "--local");
    const code = await new Promise<number | null>((done) => {
      const child = spawn(
        process.execPath,
        [BIN, ...runArgs(t, server as FakeLlmServer, "--finish", "branch"), ...BWRAP_UNLIMITED],
        { cwd: t.dir, stdio: "ignore" },
      );
      child.on("close", done);
    });
    expect(code).toBe(0);
    const traj = JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8"));
    const seen = traj.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    expect(seen[0]).toContain("A  __pycache__/calc.pyc\nM  calc.py\nno-branch\n");
    expect(headers(traj.info.submission)).toEqual(["diff --git a/calc.py b/calc.py"]);
    const [branch] = patchloopBranches(t.repo);
    expect(git(t.repo, "show", `${branch}:calc.py`)).toBe("def add(a, b):\n    return a + b\n");
    expect(git(t.repo, "branch", "--list", "sneaky")).toBe("");
    expect(git(t.repo, "config", "--list", "--local")).toBe(hooksBefore);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
  });
});
