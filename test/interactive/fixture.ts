import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { SUBMIT_COMMAND } from "../../src/config/template-vars.js";
import type { FakeBehaviour, FakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

export { SUBMIT_COMMAND };

/** A reply calling bash with `command`. */
export const bash = (command: string, content = ""): FakeBehaviour => ({
  type: "reply",
  content,
  toolCalls: [{ name: "bash", arguments: { command } }],
});

/** A reply calling the editor's str_replace. */
export const replace = (path: string, oldStr: string, newStr: string): FakeBehaviour => ({
  type: "reply",
  content: "",
  toolCalls: [
    {
      name: "str_replace_editor",
      arguments: { command: "str_replace", path, old_str: oldStr, new_str: newStr },
    },
  ],
});

export interface Task {
  dir: string;
  repo: string;
  out: string;
  /** Where the agent works in the default worktree mode. */
  worktree: string;
}

/** A repository `calc` with a bug, in a temp folder, and the run folder beside it. */
export function calcTask(): Task {
  const dir = tempDir("patchloop-interactive-");
  const repo = join(dir, "calc");
  makeRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n", "README.md": "calc\n" });
  const out = join(dir, "out");
  return { dir, repo, out, worktree: join(out, "worktree", "calc") };
}

/** `patchloop run` arguments for the bwrap environment without its memory and process limits. */
export const BWRAP_UNLIMITED = [
  "--environment",
  "bwrap",
  "-c",
  "environment.memory=null",
  "-c",
  "environment.pids_limit=null",
];

/** `patchloop run` arguments for the fake server. */
export function runArgs(t: Task, server: FakeLlmServer, ...more: string[]): string[] {
  return [
    "run",
    "--repo",
    t.repo,
    "--task",
    "add() subtracts",
    "-m",
    "openai/fake",
    "--base-url",
    `${server.url}/v1`,
    "--environment",
    "local",
    "-o",
    t.out,
    ...more,
  ];
}

/** Every file of the tree (outside .git) with a hash of its bytes, and `git status --porcelain`. */
export function treeState(repo: string): { files: Record<string, string>; status: string; staged: string } {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === ".git" && d === repo) continue;
      if (e.isDirectory()) walk(p);
      else files[relative(repo, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(repo);
  return {
    files,
    status: git(repo, "status", "--porcelain", "--untracked-files=all"),
    staged: git(repo, "diff", "--cached", "--name-only"),
  };
}

/** The text of the messages the server got in request `n` (0-based), one string. */
export function requestText(server: FakeLlmServer, n: number): string {
  return JSON.stringify((server.requests[n]?.body as { messages?: unknown })?.messages ?? null);
}

/** The branches named patchloop/... in the repository. */
export function patchloopBranches(repo: string): string[] {
  return git(repo, "branch", "--list", "patchloop/*", "--format=%(refname:short)")
    .split("\n")
    .filter(Boolean);
}
