import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { runPatchloop } from "../support/cli.js";
import { describeWithEngine } from "../support/engines.js";
import { git } from "../support/git-repo.js";
import { BWRAP_UNLIMITED, bash, calcTask, runArgs, SUBMIT_COMMAND, type Task } from "./fixture.js";

/**
 * What the model sees of the machine in `patchloop run --environment bwrap` (README, docs/sandbox.md):
 * the repository at /testbed, as in a batch; not the host path of the worktree, and of the
 * repository only its git folder (read-only); no /root or /home whatever the person's HOME (the
 * sandbox's own empty HOME is /tmp/home).
 */

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const LOOK =
  "pwd; ls /testbed; echo fix >> calc.py; git status --porcelain; git diff --stat; " +
  'test -e "$HOST_WORK" && echo "sees $HOST_WORK" || echo "no $HOST_WORK"; echo repo:; ls -A "$HOST_REPO"; ' +
  'for d in /home /root "$HOME"; do echo "$d: $(ls -A "$d" 2>&1)"; done; echo "HOME=$HOME"';

/** What the first lines of the model's look print: where it is, the tree, git on it. */
const START = "/testbed\nREADME.md\ncalc.py\n M calc.py\n calc.py | 1 +\n 1 file changed, 1 insertion(+)\n";

async function look(t: Task, more: string[]): Promise<string> {
  server = await startFakeLlmServer();
  const command = LOOK.replaceAll("$HOST_WORK", t.worktree).replaceAll("$HOST_REPO", t.repo);
  server.enqueue(bash(command), bash(SUBMIT_COMMAND));
  const r = await runPatchloop([...runArgs(t, server, ...more), ...BWRAP_UNLIMITED], {}, t.dir);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const traj = JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8"));
  const tool = traj.messages.find((m: { role: string }) => m.role === "tool");
  return /<output>\n([\s\S]*)\n<\/output>/.exec(tool.content)?.[1] ?? tool.content;
}

/** No /home and /root (this machine's HOME is /root when the tests run as root); HOME is /tmp/home, empty. */
function expectNothingOfTheHost(seen: string): void {
  const absent = (d: string) => `${d}: ls: cannot access '${d}': No such file or directory\n`;
  expect(seen).toContain(absent("/home"));
  expect(seen).toContain(absent("/root"));
  expect(seen).toMatch(/\/tmp\/home: \nHOME=\/tmp\/home\n?$/);
  // the repository's git folder, read-only at its own path (the worktree's .git file and the
  // agent's git folder name it), and nothing else of that folder
  expect(seen).toContain(`repo:\n.git\n`);
}

describeWithEngine("bwrap", "patchloop run in bwrap shows the repository at /testbed", () => {
  it("a worktree: the model works in /testbed; git works; the host paths are not there", async () => {
    const t = calcTask();
    const seen = await look(t, ["--finish", "discard"]);
    expect(seen.slice(0, START.length)).toBe(START);
    expect(seen).toContain(`no ${t.worktree}\n`);
    expectNothingOfTheHost(seen);
    const prompt = JSON.stringify(
      JSON.parse(readFileSync(join(t.out, "calc", "calc.traj.json"), "utf8")).messages.slice(0, 2),
    );
    expect(prompt).not.toContain(t.worktree);
    expect(prompt).toContain("/testbed");
  });

  it("--in-place: the model works in /testbed, its .git read-only there; the fix reaches the person's tree", async () => {
    const t = calcTask();
    const seen = await look(t, ["--in-place", "--finish", "apply"]);
    expect(seen.slice(0, START.length)).toBe(START);
    expectNothingOfTheHost(seen);
    expect(git(t.repo, "status", "--porcelain")).toBe(" M calc.py\n");
    expect(readFileSync(join(t.repo, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a - b\nfix\n");
  });
});
