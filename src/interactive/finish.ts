import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, runGit } from "./git.js";
import { branchOf, closeWorkspace, type Workspace } from "./workspace.js";

/**
 * What becomes of the patch when the run ends (asked on a terminal, `--finish` otherwise):
 * - `apply`: worktree: applied to the person's tree (the files change, nothing is staged);
 *   in place: kept in the tree, where it already is;
 * - `branch`: a commit of the patch on top of the start commit, on the branch `patchloop/<run-id>`;
 *   the tree stays as it was (in place: the changes are taken out of it again);
 * - `discard`: the tree stays as it was (in place: the changes are taken out). The patch file in
 *   the run folder is kept either way.
 *
 * The patch is the work folder's diff, taken inside the task's environment (run.ts); git here only
 * applies it to the person's repository, pinned by path (git.ts), and never reads the agent's tree
 * to find a repository.
 */
export type FinishChoice = "apply" | "branch" | "discard";

export const FINISH_CHOICES: readonly FinishChoice[] = ["apply", "branch", "discard"];

/** Whether in-place changes can be taken out again (only when the tree was clean at the start). */
export function canUndoInPlace(ws: Workspace): boolean {
  return ws.mode === "worktree" || ws.changesAtStart.length === 0;
}

async function commitOf(ws: Workspace, patch: string, message: string): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), "patchloop-commit-"));
  // without the worktree's objects as alternates: every object of the commit is written to the
  // repository's own store from the patch text (binary hunks are whole), nothing read from the agent's
  const env: Record<string, string> = { GIT_INDEX_FILE: join(tmp, "index") };
  try {
    await git(ws.git, ["read-tree", ws.base], { env });
    await git(ws.git, ["apply", "--cached", "--binary", "--whitespace=nowarn", "-"], { env, input: patch });
    const tree = (await git(ws.git, ["write-tree"], { env })).trim();
    const named = (await runGit(ws.git, ["config", "user.email"])).stdout.trim() !== "";
    const who: Record<string, string> = named
      ? {}
      : {
          GIT_AUTHOR_NAME: "patchloop",
          GIT_AUTHOR_EMAIL: "patchloop@localhost",
          GIT_COMMITTER_NAME: "patchloop",
          GIT_COMMITTER_EMAIL: "patchloop@localhost",
        };
    return (
      await git(ws.git, ["commit-tree", tree, "-p", ws.base, "-F", "-"], {
        env: { ...env, ...who },
        input: message,
      })
    ).trim();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Takes in-place changes out of the tree again (the patch reversed). */
async function undoInPlace(ws: Workspace, patch: string): Promise<void> {
  await git(ws.git, ["apply", "-R", "--binary", "--whitespace=nowarn", "-"], { input: patch });
}

/**
 * Carries out the choice and ends the workspace (closeWorkspace). Returns what was done, one line
 * each, for the console. A patch that does not apply to the person's tree is put on the branch
 * instead, so it is never lost.
 */
export async function carryOut(
  ws: Workspace,
  choice: FinishChoice,
  patch: string,
  message: string,
): Promise<string[]> {
  const said: string[] = [];
  if (patch === "") {
    await closeWorkspace(ws);
    return ["the agent changed nothing: there is no patch"];
  }
  let effective = choice;
  if (ws.mode === "in-place" && choice !== "apply" && !canUndoInPlace(ws)) {
    said.push(
      `the tree had uncommitted changes of yours at the start, so the agent's changes cannot be told apart from them: they stay in ${ws.repo}`,
    );
    effective = "apply";
  }
  if (effective === "apply" && ws.mode === "worktree") {
    const r = await runGit(ws.git, ["apply", "--binary", "--whitespace=nowarn", "-"], { input: patch });
    if (r.code === 0) said.push(`applied to ${ws.repo} (the files are changed; nothing is staged)`);
    else {
      said.push(`the patch does not apply to ${ws.repo} as it is now: ${r.stderr.trim().split("\n")[0]}`);
      effective = "branch";
    }
  } else if (effective === "apply") {
    said.push(`the changes stay in ${ws.repo} (nothing is staged)`);
  }
  let commit: string | null = null;
  if (effective === "branch") commit = await commitOf(ws, patch, message);
  if (ws.mode === "in-place" && effective !== "apply") await undoInPlace(ws, patch);
  await closeWorkspace(ws);
  if (commit !== null) {
    const branch = branchOf(ws);
    await git(ws.git, ["branch", "--force", branch, commit]);
    said.push(
      `committed on the branch ${branch} (${commit.slice(0, 12)}, on top of ${ws.base.slice(0, 12)}); your tree is as it was. ` +
        `See it with: git -C ${ws.repo} show ${branch}`,
    );
  } else if (effective === "discard") {
    said.push(
      ws.mode === "worktree"
        ? `discarded: ${ws.repo} is as it was`
        : `taken out of ${ws.repo} again: it is as it was`,
    );
  }
  return said;
}
