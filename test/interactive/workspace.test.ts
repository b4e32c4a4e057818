import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { runPatchloop } from "../support/cli.js";
import { git } from "../support/git-repo.js";
import {
  bash,
  calcTask,
  patchloopBranches,
  replace,
  runArgs,
  SUBMIT_COMMAND,
  type Task,
  treeState,
} from "./fixture.js";

/** The CLI without a terminal (stdin and stdout are pipes): a batch-style run, which never prompts. */
const cli = (args: string[], cwd: string) => runPatchloop(args, {}, cwd);

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Uncommitted work of the person's: a changed tracked file, a staged new file, an untracked one. */
function personalChanges(t: Task): void {
  writeFileSync(join(t.repo, "README.md"), "calc, my notes\n");
  writeFileSync(join(t.repo, "staged.txt"), "staged by me\n");
  git(t.repo, "add", "staged.txt");
  writeFileSync(join(t.repo, "scratch.txt"), "mine\n");
}

describe("patchloop run in the default worktree mode", () => {
  it("leaves the person's tree byte-identical, uncommitted changes included, and writes a patch that applies to it", async () => {
    const t = calcTask();
    personalChanges(t);
    server = await startFakeLlmServer();
    server.enqueue(
      replace(join(t.worktree, "calc.py"), "a - b", "a + b"),
      // bytecode, node_modules and build output made while testing never reach the patch
      bash(
        "mkdir -p __pycache__ node_modules/left-pad build && printf '\\0\\1' > __pycache__/calc.cpython-311.pyc && " +
          "echo x > node_modules/left-pad/index.js && echo o > build/out.txt && echo 'def test(): pass' > test_calc.py",
      ),
      bash(SUBMIT_COMMAND),
    );
    const before = treeState(t.repo);
    expect(before.status).toBe(" M README.md\nA  staged.txt\n?? scratch.txt\n");
    const r = await cli(runArgs(t, server), t.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `the agent works in a worktree of ${t.repo} at ${git(t.repo, "rev-parse", "HEAD").slice(0, 12)} (HEAD): ${t.worktree}; your tree does not change until you choose at the end`,
    );
    expect(r.stdout).toContain(
      "your 3 uncommitted change(s) are not in the worktree (it starts from HEAD) and stay as they are\n",
    );
    expect(r.stdout).toContain(`discarded: ${t.repo} is as it was\n`);
    expect(treeState(t.repo)).toEqual(before);
    expect(patchloopBranches(t.repo)).toEqual([]);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
    const patchFile = join(t.out, "calc", "calc.patch");
    const patch = readFileSync(patchFile, "utf8");
    expect(patch.match(/^diff --git .*$/gm)).toEqual([
      "diff --git a/calc.py b/calc.py",
      "diff --git a/test_calc.py b/test_calc.py",
    ]);
    // the same patch text the harness gets, applied to the person's tree as it is
    expect(JSON.parse(readFileSync(join(t.out, "preds.json"), "utf8")).calc.model_patch).toBe(patch);
    git(t.repo, "apply", patchFile);
    expect(readFileSync(join(t.repo, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    expect(readFileSync(join(t.repo, "README.md"), "utf8")).toBe("calc, my notes\n");
  });

  it("--finish apply and --finish branch carry out the choice without a terminal", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    server.enqueue(replace(join(t.worktree, "calc.py"), "a - b", "a + b"), bash(SUBMIT_COMMAND));
    const applied = await cli(runArgs(t, server, "--finish", "apply"), t.dir);
    expect(applied.code, applied.stderr).toBe(0);
    expect(git(t.repo, "status", "--porcelain")).toBe(" M calc.py\n");
    git(t.repo, "checkout", "--", "calc.py");
    server.enqueue(
      replace(join(`${t.out}-2`, "worktree", "calc", "calc.py"), "a - b", "a + b"),
      bash(SUBMIT_COMMAND),
    );
    const branched = await cli(runArgs(t, server, "--finish", "branch"), t.dir);
    expect(branched.code, branched.stderr).toBe(0);
    // the second run got a new folder beside the first, and said so
    expect(branched.stderr).toContain(`note: ${t.out} exists already; writing to ${t.out}-2 instead\n`);
    expect(existsSync(join(t.out, "calc", "calc.traj.json"))).toBe(true);
    expect(existsSync(join(`${t.out}-2`, "calc", "calc.traj.json"))).toBe(true);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
    const [branch] = patchloopBranches(t.repo);
    expect(git(t.repo, "show", `${branch}:calc.py`)).toBe("def add(a, b):\n    return a + b\n");
    const bad = await cli(runArgs(t, server, "--finish", "keep"), t.dir);
    expect([bad.code, bad.stderr]).toEqual([2, "error: --finish keep: give one of apply, branch, discard\n"]);
  });
});

describe("patchloop run --in-place", () => {
  it("refuses a tree with uncommitted changes unless --allow-dirty, and leaves nothing staged", async () => {
    const t = calcTask();
    personalChanges(t);
    server = await startFakeLlmServer();
    const refused = await cli(runArgs(t, server, "--in-place"), t.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: --in-place: ${t.repo} has uncommitted changes (3 file(s), e.g. README.md); they would end up in the patch. ` +
        "Commit or stash them, leave out --in-place (the agent then works in a worktree and your tree is not touched), " +
        "or add --allow-dirty to work on them anyway.\n",
    );
    expect(server.requests).toHaveLength(0);
    const alone = await cli(runArgs(t, server, "--allow-dirty"), t.dir);
    expect(alone.stderr).toContain("error: --allow-dirty goes with --in-place");
    // the model stages everything the old way (git add -A); the person's index comes back as it was
    server.enqueue(
      replace(join(t.repo, "calc.py"), "a - b", "a + b"),
      bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"),
    );
    const dirty = await cli(runArgs(t, server, "--in-place", "--allow-dirty"), t.dir);
    expect(dirty.code, dirty.stderr).toBe(0);
    expect(dirty.stdout).toContain(
      `--in-place: the agent works in ${t.repo} itself (--allow-dirty: your 3 uncommitted change(s) will be part of the patch)`,
    );
    expect(git(t.repo, "diff", "--cached", "--name-only")).toBe("staged.txt\n");
    expect(git(t.repo, "status", "--porcelain")).toBe(
      " M README.md\n M calc.py\nA  staged.txt\n?? scratch.txt\n",
    );
  });

  it("on a clean tree, --finish discard takes the changes out again and keeps the patch file", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    mkdirSync(join(t.dir, "x"));
    server.enqueue(replace(join(t.repo, "calc.py"), "a - b", "a + b"), bash(SUBMIT_COMMAND));
    const r = await cli(runArgs(t, server, "--in-place", "--finish", "discard"), t.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`taken out of ${t.repo} again: it is as it was\n`);
    expect(git(t.repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(t.out, "calc", "calc.patch"), "utf8")).toContain("+    return a + b\n");
  });
});

describe("run.interactive templates", () => {
  it("an unknown variable is a config error before the worktree or the model is touched", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    const r = await cli(runArgs(t, server, "-c", "run.interactive.rejected_template='{{ reason }}'"), t.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "error: template run.interactive.rejected_template uses undefined variables:\n  - reason\n  available: message\n",
    );
    expect(server.requests).toHaveLength(0);
    expect(patchloopBranches(t.repo)).toEqual([]);
    expect(existsSync(t.out)).toBe(false);
  });
});

describe("patchloop run with a config made for SWE-bench containers", () => {
  it("says to add --environment (or --image) and leaves no run folder behind", async () => {
    const t = calcTask();
    server = await startFakeLlmServer();
    const args = runArgs(t, server, "-c", "swebench_backticks");
    // runArgs names --environment local: take it out, as a person who copies a swebench command would
    args.splice(args.indexOf("--environment"), 2);
    const r = await cli(args, t.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: the config runs commands in a docker container (environment.environment_class: docker, as the " +
        "swebench configs do, where each SWE-bench row names its image), but gives no image for your repository. " +
        "Add --environment bwrap (a sandbox on this machine) or --environment local (no isolation), or --image IMAGE " +
        "to run it in a docker container of that image with the repository mounted.\n",
    );
    expect(existsSync(t.out)).toBe(false);
    expect(server.requests).toHaveLength(0);
    // an image that cannot start: the error is the engine's, and the empty run folder goes too
    const bad = await cli(
      [
        ...args,
        "--environment",
        "docker",
        "--image",
        "patchloop-test/none:never",
        "-c",
        "environment.executable=/nonexistent/docker",
      ],
      t.dir,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error: cannot start the docker environment:");
    expect(existsSync(t.out)).toBe(false);
    expect(git(t.repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
  });
});
