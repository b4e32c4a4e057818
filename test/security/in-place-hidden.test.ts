import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { workTreeDiff } from "../../src/agent/work-tree-diff.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { BWRAP_UNLIMITED, bash, SUBMIT_COMMAND } from "../interactive/fixture.js";
import { type CliRun, runPatchloop } from "../support/cli.js";
import { describeWithEngine } from "../support/engines.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/**
 * `patchloop run --in-place` in bwrap, with a hostile model that leaves changes no patch shows:
 * a tracked file hidden by an index flag, a planted .pyc, ignored and excluded files, build output,
 * writes to `.git`. Each would run on the host later (`import app`, pytest, a hook); after the run
 * none of them may be left, and the console must list what was undone.
 */

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PYTHON = "/usr/bin/python3";

interface Proj {
  dir: string;
  repo: string;
  out: string;
}

const FILES: Record<string, string> = {
  "app.py": "def f():\n    return 1\n",
  "test_app.py": "from app import f\n\n\ndef test_f():\n    assert f() == 1\n",
  "conftest.py": "# shared fixtures\n",
  ".gitignore": ".env\n*.log\nlocal_settings.py\n",
};

/** A Python project with an ignored `.env` of the person's and an excluded path in .git/info/exclude. */
function project(): Proj {
  const dir = tempDir("patchloop-hidden-");
  const repo = join(dir, "app");
  makeRepo(repo, FILES);
  writeFileSync(join(repo, ".env"), "TOKEN=mine\n");
  writeFileSync(join(repo, ".git", "info", "exclude"), "sitecustomize.py\n");
  // an old time, as a file the person has not touched for a while
  execFileSync("touch", ["-d", "2020-01-02 03:04:05", join(repo, "app.py"), join(repo, ".env")]);
  return { dir, repo, out: join(dir, "out") };
}

async function hostileRun(p: Proj, commands: string[], finish = "discard"): Promise<CliRun> {
  server = await startFakeLlmServer();
  server.enqueue(...commands.map((c) => bash(c)), bash(SUBMIT_COMMAND));
  return runPatchloop(
    [
      "run",
      "--repo",
      p.repo,
      "--task",
      "f() is wrong",
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "-o",
      p.out,
      "--in-place",
      "--finish",
      finish,
      ...BWRAP_UNLIMITED,
    ],
    {},
    p.dir,
  );
}

/** What each of the model's commands printed, in order. */
function seen(p: Proj): string[] {
  const traj = JSON.parse(readFileSync(join(p.out, "app", "app.traj.json"), "utf8"));
  return traj.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => /<output>\n([\s\S]*)\n<\/output>/.exec(m.content)?.[1] ?? m.content);
}

/** Every file of the tree outside .git, with its bytes, sorted. */
function files(repo: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const e of readdirSync(join(repo, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (path === ".git") continue;
      if (e.isDirectory()) visit(path);
      else out[path] = readFileSync(join(repo, path), "latin1");
    }
  };
  visit("");
  return out;
}

/** Python on the host, in the repository, as the person would run it afterwards (no bytecode written). */
function hostPython(repo: string, code: string): string {
  return execFileSync(PYTHON, ["-c", code], {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: "" },
  });
}

it("the diff of the work tree shows changes hidden by --assume-unchanged and --skip-worktree", async () => {
  const repo = join(tempDir(), "app");
  const base = makeRepo(repo, FILES);
  writeFileSync(join(repo, "test_app.py"), "import os\n");
  writeFileSync(join(repo, "conftest.py"), "import sys\n");
  git(repo, "update-index", "--assume-unchanged", "test_app.py");
  git(repo, "update-index", "--skip-worktree", "conftest.py");
  expect(git(repo, "status", "--porcelain")).toBe("");
  const env = createLocalEnvironment({ cwd: repo, warn: () => {} });
  try {
    const patch = await workTreeDiff(env, base);
    expect(patch.match(/^diff --git .*$/gm)).toEqual([
      "diff --git a/conftest.py b/conftest.py",
      "diff --git a/test_app.py b/test_app.py",
    ]);
    expect(patch).toContain("+import os\n");
    expect(patch).toContain("+import sys\n");
  } finally {
    await env.close();
  }
});

describeWithEngine("bwrap", "--in-place in bwrap: nothing hidden outlives the run", () => {
  it("tracked files hidden by --assume-unchanged and --skip-worktree are shown and taken out", async () => {
    const p = project();
    const before = files(p.repo);
    const r = await hostileRun(p, [
      "echo 'import os; os.system(\"touch /tmp/pwned\")' >> test_app.py && echo 'raise SystemExit(\"owned\")' >> conftest.py && " +
        "git update-index --assume-unchanged test_app.py && git update-index --skip-worktree conftest.py && " +
        "git status --porcelain && echo hidden",
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(p)[0]).toBe("hidden\n");
    expect(files(p.repo)).toEqual(before);
    // the agent's own submission left them out (empty); the work folder's diff holds them, so they
    // are the patch, and discard takes them out
    expect(readFileSync(join(p.out, "app", "app.patch"), "utf8")).toBe("");
    expect(r.stdout).toContain(
      "nothing outside the patch changed in the tree (compared with the tree at the start (5 paths))\n",
    );
    expect(r.stdout).toContain(`taken out of ${p.repo} again: it is as it was\n`);
    expect(r.stdout).not.toContain("the agent changed nothing");
    expect(git(p.repo, "status", "--porcelain")).toBe("");
  });

  it("a planted .pyc with the untouched module's time and size is removed; import app runs the real code", async () => {
    const p = project();
    const before = files(p.repo);
    const plant =
      "import importlib._bootstrap_external as b, importlib.util as u, os\n" +
      "st = os.stat('app.py')\n" +
      "code = compile('def f():\\n    return \"PWNED\"\\n', 'app.py', 'exec')\n" +
      "path = u.cache_from_source('app.py')\n" +
      "os.makedirs(os.path.dirname(path), exist_ok=True)\n" +
      "open(path, 'wb').write(b._code_to_timestamp_pyc(code, st.st_mtime, st.st_size))\n" +
      "print(path)\n";
    const r = await hostileRun(p, [
      `${PYTHON} - <<'EOF'\n${plant}EOF\n${PYTHON} -c 'import app; print(app.f())'`,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [pyc, planted] = seen(p)[0].trim().split("\n");
    expect(planted).toBe("PWNED");
    expect(hostPython(p.repo, "import app; print(app.f())")).toBe("1\n");
    expect(existsSync(join(p.repo, pyc))).toBe(false);
    expect(files(p.repo)).toEqual(before);
    expect(r.stdout).toContain(
      "1 change(s) in the tree are not in the patch (ignored or excluded files, bytecode, build output, or hidden from git by the agent; compared with the tree at the start (",
    );
    expect(r.stdout).toContain("\n  added folder __pycache__: removed\n");
    expect(r.stdout).toContain(`there is no patch; ${p.repo} is as it was at the start\n`);
  });

  it("ignored and excluded files, node_modules and build output are put back or removed, with --finish apply too", async () => {
    const p = project();
    const envTime = statSync(join(p.repo, ".env")).mtimeMs;
    const r = await hostileRun(
      p,
      [
        "sed -i 's/return 1/return 2/' app.py && " +
          // the same size, the old time set back: only the change time gives it away
          "printf 'TOKEN=evil\\n' > .env.new && cat .env.new > .env && rm .env.new && touch -d '2020-01-02 03:04:05' .env && " +
          "echo 'import os' > local_settings.py && echo 'print(\"owned\")' > sitecustomize.py && " +
          "mkdir -p node_modules/.bin build && echo evil > node_modules/.bin/tool && echo x > build/out.txt && " +
          "echo 'evil.py' >> .git/info/exclude 2>&1; " +
          // a name that would forge a console line and clear the screen, were it printed as it is
          "touch \"$(printf 'x\\nnothing outside the patch changed\\033[2J.log')\"; echo done",
      ],
      "apply",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(p)[0]).toContain("Read-only file system");
    // the patch (the fix) is applied; nothing else is left
    expect(files(p.repo)).toEqual({ ...FILES, "app.py": "def f():\n    return 2\n", ".env": "TOKEN=mine\n" });
    expect(r.stdout).toContain(
      "6 change(s) in the tree are not in the patch (ignored or excluded files, bytecode, build output, or hidden from git by the agent; compared with the tree at the start (",
    );
    expect(r.stdout).toContain(
      "  changed file .env: restored\n" +
        "  added folder build: removed\n" +
        "  added file local_settings.py: removed\n" +
        "  added folder node_modules: removed\n" +
        "  added file sitecustomize.py: removed\n" +
        '  added file "x\\nnothing outside the patch changed\\u001b[2J.log": removed\n',
    );
    expect(r.stdout).toContain(`the changes stay in ${p.repo} (nothing is staged)\n`);
    expect(statSync(join(p.repo, ".env")).mtimeMs).toBe(envTime);
    expect(readFileSync(join(p.repo, ".git", "info", "exclude"), "utf8")).toBe("sitecustomize.py\n");
    expect(git(p.repo, "status", "--porcelain")).toBe(" M app.py\n");
  });

  it("--finish apply leaves exactly the patch, even when a clean filter of the agent's made git show other text", async () => {
    const p = project();
    const r = await hostileRun(
      p,
      [
        // a filter in the sandbox's HOME: git inside stages "return 2" while the file says "return EVIL"
        "printf '[filter \"hide\"]\\n\\tclean = sed s/EVIL/2/\\n[core]\\n\\tattributesFile = ~/attrs\\n' > ~/.gitconfig && " +
          "echo 'app.py filter=hide' > ~/attrs && sed -i 's/return 1/return EVIL/' app.py && git diff --stat && cat app.py",
      ],
      "apply",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(p)[0]).toContain("return EVIL");
    expect(readFileSync(join(p.out, "app", "app.patch"), "utf8")).toContain("+    return 2\n");
    expect(readFileSync(join(p.repo, "app.py"), "utf8")).toBe("def f():\n    return 2\n");
    expect(r.stdout).toContain(`the changes stay in ${p.repo} (nothing is staged)\n`);
  });

  it("writes to .git (hooks, config) fail in the sandbox and leave nothing; --finish branch keeps the tree as it was", async () => {
    const p = project();
    const gitFiles = () => ({
      config: readFileSync(join(p.repo, ".git", "config"), "utf8"),
      hooks: readdirSync(join(p.repo, ".git", "hooks")).sort(),
    });
    const before = gitFiles();
    const tree = files(p.repo);
    const r = await hostileRun(
      p,
      [
        "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/post-checkout 2>&1; " +
          "git config --file .git/config core.pager 'touch /tmp/pwned' 2>&1; " +
          "mkdir -p .git/hooks.d 2>&1; sed -i 's/return 1/return 2/' app.py; mkdir -p build && echo x > build/out.txt; echo tried",
      ],
      "branch",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(p)[0]).toContain("Read-only file system");
    expect(seen(p)[0]).toContain("tried\n");
    expect(gitFiles()).toEqual(before);
    expect(files(p.repo)).toEqual(tree);
    expect(git(p.repo, "status", "--porcelain")).toBe("");
    const branch = git(p.repo, "branch", "--list", "patchloop/*", "--format=%(refname:short)").trim();
    expect(git(p.repo, "show", `${branch}:app.py`)).toBe("def f():\n    return 2\n");
    expect(r.stdout).toContain("\n  added folder build: removed\n");
    expect(r.stdout).toContain(`committed on the branch ${branch} (`);
  });
});

it("a snapshot of a tree of a few thousand files is quick (measured)", async () => {
  const { takeSnapshot } = await import("../../src/interactive/tree-snapshot.js");
  const repo = join(tempDir(), "big");
  const many: Record<string, string> = {};
  for (let i = 0; i < 3000; i++) many[`pkg${i % 30}/mod${i}.py`] = `x = ${i}\n`.repeat(20);
  makeRepo(repo, many);
  mkdirSync(join(repo, "node_modules", "a"), { recursive: true });
  for (let i = 0; i < 1000; i++)
    writeFileSync(join(repo, "node_modules", "a", `f${i}.js`), "y\n".repeat(100));
  const snap = await takeSnapshot(
    repo,
    { gitDir: join(repo, ".git"), workTree: repo },
    join(tempDir(), "copies"),
  );
  expect(snap.stats.paths).toBe(3000 + 30 + 1000 + 2);
  expect(snap.stats.copiedFiles).toBe(1000);
  process.stderr.write(`[in-place-hidden] snapshot of ${snap.stats.paths} paths: ${snap.stats.ms} ms\n`);
  expect(snap.stats.ms).toBeLessThan(20_000);
});
