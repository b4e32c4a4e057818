import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  bash,
  calcTask,
  patchloopBranches,
  runArgs,
  SUBMIT_COMMAND,
  type Task,
} from "../interactive/fixture.js";
import { type CliRun, runPatchloop } from "../support/cli.js";
import { describeWithEngine, type EngineName, testImage } from "../support/engines.js";
import { git } from "../support/git-repo.js";

/**
 * A hostile model in `patchloop run` plants things in the tree it may write, for git on the host to
 * trip over at the end of the run: a `.git` file pointing at a repository of its own, a rewritten
 * `commondir` in the worktree's git folder, a submodule folder turned into a repository, a monitor
 * and a hook in the person's own `.git` (in place), refs of its own, a file too large to hash. Each
 * planted command would create a marker file in a host folder the sandbox cannot see: the marker
 * must never appear, and the person's repository must be as it was. Run in bwrap, docker and podman.
 */

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The host's git shown inside the test image, which has none (Debian minbase, as the host). */
const HOST_GIT = ["/usr/bin/git", "/usr/lib/git-core", "/usr/share/git-core"]
  .filter((p) => existsSync(p))
  .flatMap((p) => ["--volume", `${p}:${p}:ro`]);

function engineArgs(engine: EngineName): string[] {
  if (engine === "bwrap")
    return ["--environment", "bwrap", "-c", "environment.memory=null", "-c", "environment.pids_limit=null"];
  return [
    "--environment",
    engine,
    "--image",
    testImage(engine),
    "-c",
    `environment.run_args=${JSON.stringify(HOST_GIT)}`,
  ];
}

/** A shell line that runs `cmd` when a git command reads the config it is put in, marking `marker`. */
const hook = (marker: string) => `touch ${marker}; :`;

/** git without the private object folder patchloop gives the agent (for `git init`). */
const plainGit = "env -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES -u GIT_INDEX_FILE git";

/** Runs `patchloop run` with the model's `commands` (then `submit`) in `engine`. */
async function hostileRun(
  t: Task,
  engine: EngineName,
  commands: string[],
  more: string[] = [],
  submit = SUBMIT_COMMAND,
): Promise<CliRun> {
  server = await startFakeLlmServer();
  server.enqueue(...commands.map((c) => bash(c)), bash(submit));
  return runPatchloop([...runArgs(t, server, ...more), ...engineArgs(engine)], {}, t.dir);
}

/** What each of the model's commands printed, in order (the observation's output part). */
function seen(t: Task): string[] {
  const traj = JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8"));
  return traj.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => /<output>\n([\s\S]*)\n<\/output>/.exec(m.content)?.[1] ?? m.content);
}

/** What of the person's repository a planted command could change. */
function repoState(repo: string) {
  return {
    config: readFileSync(join(repo, ".git", "config"), "utf8"),
    hooks: readdirSync(join(repo, ".git", "hooks")).sort(),
    refs: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
    status: git(repo, "status", "--porcelain", "--untracked-files=all"),
  };
}

function engineSuite(engine: EngineName): void {
  it("a .git file pointed at a planted repository with a monitor and a clean filter runs nothing on the host", async () => {
    const t = calcTask();
    const before = repoState(t.repo);
    const marks = [join(t.dir, "pwned-fsmonitor"), join(t.dir, "pwned-filter")];
    const r = await hostileRun(
      t,
      engine,
      [
        "sed -i 's/a - b/a + b/' calc.py && common=$(git rev-parse --git-common-dir) && " +
          `${plainGit} init -q /tmp/evil && mv /tmp/evil/.git .evil && echo "$common/objects" > .evil/objects/info/alternates && ` +
          `git --git-dir=.evil config core.fsmonitor '${hook(marks[0])}' && ` +
          `git --git-dir=.evil config filter.evil.clean 'touch ${marks[1]}; cat' && ` +
          "echo '* filter=evil' > .gitattributes && printf 'gitdir: .evil\\n' > .git && cat .git",
      ],
      ["--finish", "discard"],
    );
    for (const m of marks) expect(existsSync(m), m).toBe(false);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(t)[0]).toBe("gitdir: .evil\n");
    expect(repoState(t.repo)).toEqual(before);
    expect(existsSync(t.worktree)).toBe(false);
  });

  it("a rewritten commondir in the worktree's git folder runs nothing on the host", async () => {
    const t = calcTask();
    const before = repoState(t.repo);
    const mark = join(t.dir, "pwned-commondir");
    const r = await hostileRun(
      t,
      engine,
      [
        "sed -i 's/a - b/a + b/' calc.py && admin=$(git rev-parse --absolute-git-dir) && common=$(git rev-parse --git-common-dir) && " +
          `${plainGit} init -q --bare /tmp/planted && cp -r /tmp/planted "$admin/planted" && ` +
          `echo "$common/objects" > "$admin/planted/objects/info/alternates" && ` +
          `git --git-dir="$admin/planted" config core.bare false && git --git-dir="$admin/planted" config core.fsmonitor '${hook(mark)}' && ` +
          `echo planted > "$admin/commondir" && echo rewritten`,
      ],
      ["--finish", "discard"],
    );
    expect(existsSync(mark)).toBe(false);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(t)[0]).toBe("rewritten\n");
    expect(repoState(t.repo)).toEqual(before);
  });

  it("a submodule folder turned into a repository with its own monitor runs nothing on the host", async () => {
    const t = calcTask();
    // a submodule entry at sub/ (its folder is empty in a checkout)
    const head = git(t.repo, "rev-parse", "HEAD").trim();
    git(t.repo, "update-index", "--add", "--cacheinfo", `160000,${head},sub`);
    git(t.repo, "commit", "-q", "-m", "a submodule");
    const before = repoState(t.repo);
    const mark = join(t.dir, "pwned-submodule");
    const r = await hostileRun(
      t,
      engine,
      [
        "sed -i 's/a - b/a + b/' calc.py && " +
          `${plainGit} init -q sub && echo x > sub/f && ${plainGit} -C sub add f && ` +
          `${plainGit} -C sub -c user.name=m -c user.email=m@m commit -q -m m && ` +
          `${plainGit} -C sub config core.fsmonitor '${hook(mark)}' && echo made`,
      ],
      ["--finish", "branch"],
    );
    expect(existsSync(mark)).toBe(false);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(t)[0]).toBe("made\n");
    // the fix is still carried out: a commit on the branch, the person's tree as it was
    const [branch] = patchloopBranches(t.repo);
    expect(git(t.repo, "show", `${branch}:calc.py`)).toBe("def add(a, b):\n    return a + b\n");
    expect(repoState(t.repo).config).toBe(before.config);
    expect(repoState(t.repo).status).toBe(before.status);
  });

  it("refs the agent makes in the repository do not outlive the run", async () => {
    const t = calcTask();
    const before = repoState(t.repo);
    const r = await hostileRun(
      t,
      engine,
      [
        "git update-ref refs/heads/patchloop/evil HEAD 2>&1; git update-ref refs/heads/main HEAD~0 2>&1; " +
          "git -c user.name=m -c user.email=m@m commit -q --allow-empty -m c 2>&1; echo tried",
      ],
      ["--finish", "discard"],
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(seen(t)[0]).toContain("tried\n");
    expect(repoState(t.repo)).toEqual(before);
    expect(patchloopBranches(t.repo)).toEqual([]);
  });

  it("--in-place: the person's .git is read-only to the agent (no monitor, no hook); git still works on a private index", async () => {
    const t = calcTask();
    const before = repoState(t.repo);
    const mark = join(t.dir, "pwned-inplace");
    const r = await hostileRun(
      t,
      engine,
      [
        `git config core.fsmonitor '${hook(mark)}' 2>&1; ` +
          `printf '#!/bin/sh\\ntouch ${mark}-hook\\n' > .git/hooks/pre-commit 2>&1; echo tried`,
        "sed -i 's/a - b/a + b/' calc.py && git add calc.py && git diff --cached --stat",
      ],
      ["--in-place", "--finish", "apply"],
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [tried, staged] = seen(t);
    expect(tried).toContain("Read-only file system");
    expect(tried).toContain("tried\n");
    expect(staged).toBe(" calc.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n");
    expect(existsSync(mark)).toBe(false);
    expect(existsSync(`${mark}-hook`)).toBe(false);
    const after = repoState(t.repo);
    expect({ ...after, status: before.status }).toEqual(before);
    // the fix stays in the tree; the person's index is as it was (nothing staged)
    expect(after.status).toBe(" M calc.py\n");
  });

  it("a file too large to hash ends the run in time: the changes are not read, the worktree is left", async () => {
    const t = calcTask();
    // the submission is the marker alone: the model's own diff would meet the same file
    const r = await hostileRun(
      t,
      engine,
      ["truncate -s 1T huge.bin && echo made"],
      ["--finish", "apply", "-c", "environment.timeout=5"],
      "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "the work folder's changes could not be read: git diff of the work tree did not finish within 5 s",
    );
    expect(r.stdout).toContain(`it is left as it is: ${t.worktree}\n`);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
  });
}

for (const engine of ["bwrap", "docker", "podman"] as const)
  describeWithEngine(engine, `host-side git after a hostile run in ${engine}`, () => engineSuite(engine));

it("a run folder through a link into the repository is refused, and so is --repo through a link with -o inside", async () => {
  const t = calcTask();
  const { symlinkSync } = await import("node:fs");
  symlinkSync(t.repo, join(t.dir, "repo-link"));
  server = await startFakeLlmServer();
  const viaLink = await runPatchloop(
    [
      "run",
      "--repo",
      join(t.dir, "repo-link"),
      "--task",
      "x",
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "--environment",
      "local",
      "-o",
      join(t.repo, "runs"),
    ],
    {},
    t.dir,
  );
  expect(viaLink.code).toBe(2);
  expect(viaLink.stderr).toContain(`error: -o ${join(t.repo, "runs")} is inside the repository ${t.repo}`);
  symlinkSync(join(t.repo), join(t.dir, "out-link"));
  const outLink = await runPatchloop(
    [
      "run",
      "--repo",
      t.repo,
      "--task",
      "x",
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "--environment",
      "local",
      "-o",
      join(t.dir, "out-link", "runs"),
    ],
    {},
    t.dir,
  );
  expect(outLink.code).toBe(2);
  expect(outLink.stderr).toContain(
    `error: -o ${join(t.dir, "out-link", "runs")} is inside the repository ${t.repo}`,
  );
  // the default run folder, from inside the repository reached through the link, goes beside it
  server.enqueue(bash(SUBMIT_COMMAND));
  const fromInside = await runPatchloop(
    [
      "run",
      "--repo",
      ".",
      "--task",
      "x",
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "--environment",
      "local",
    ],
    {},
    join(t.dir, "repo-link"),
  );
  expect(fromInside.code, fromInside.stderr).toBe(0);
  expect(readdirSync(t.repo).sort()).toEqual([".git", "README.md", "calc.py"]);
  expect(readdirSync(join(t.dir, "patchloop-runs"))).toHaveLength(1);
  expect(server.requests).toHaveLength(1);
});
