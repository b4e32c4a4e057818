import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, runGit } from "./git.js";
import {
  compareTree,
  type TreeChange,
  type TreeSnapshot,
  type Undone,
  undoChanges,
} from "./tree-snapshot.js";
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
 * instead, so it is never lost. In place with a sandbox (ws.snapshot), the tree is first compared
 * with its state at the start: see {@link carryOutChecked}.
 */
export async function carryOut(
  ws: Workspace,
  choice: FinishChoice,
  patch: string,
  message: string,
): Promise<string[]> {
  if (ws.snapshot) return carryOutChecked(ws, ws.snapshot, choice, patch, message);
  const said: string[] = [];
  if (patch === "") {
    await closeWorkspace(ws);
    return ["the agent changed nothing: there is no patch"];
  }
  let effective = choice;
  if (ws.mode === "in-place" && choice !== "apply" && !canUndoInPlace(ws)) {
    said.push(keptOwnChanges(ws));
    effective = "apply";
  }
  if (effective === "apply" && ws.mode === "worktree") {
    const r = await applyToTree(ws, patch);
    if (r === null) said.push(`applied to ${ws.repo} (the files are changed; nothing is staged)`);
    else {
      said.push(r);
      effective = "branch";
    }
  } else if (effective === "apply") {
    said.push(`the changes stay in ${ws.repo} (nothing is staged)`);
  }
  let commit: string | null = null;
  if (effective === "branch") commit = await commitOf(ws, patch, message);
  if (ws.mode === "in-place" && effective !== "apply") await undoInPlace(ws, patch);
  await closeWorkspace(ws);
  said.push(...(await afterwards(ws, effective, commit)));
  return said;
}

function keptOwnChanges(ws: Workspace): string {
  return `the tree had uncommitted changes of yours at the start, so the agent's changes cannot be told apart from them: they stay in ${ws.repo}`;
}

/** Applies the patch to the person's tree: null when it did, else the line saying why not. */
async function applyToTree(ws: Workspace, patch: string): Promise<string | null> {
  const r = await runGit(ws.git, ["apply", "--binary", "--whitespace=nowarn", "-"], { input: patch });
  return r.code === 0
    ? null
    : `the patch does not apply to ${ws.repo} as it is now: ${r.stderr.trim().split("\n")[0]}`;
}

/** Makes the branch of a commit, and says what became of the patch: the branch, or the tree as it was. */
async function afterwards(ws: Workspace, effective: FinishChoice, commit: string | null): Promise<string[]> {
  if (commit !== null) {
    const branch = branchOf(ws);
    await git(ws.git, ["branch", "--force", branch, commit]);
    return [
      `committed on the branch ${branch} (${commit.slice(0, 12)}, on top of ${ws.base.slice(0, 12)}); your tree is as it was. ` +
        `See it with: git -C ${ws.repo} show ${branch}`,
    ];
  }
  if (effective !== "discard") return [];
  return [
    ws.mode === "worktree"
      ? `discarded: ${ws.repo} is as it was`
      : `taken out of ${ws.repo} again: it is as it was`,
  ];
}

/**
 * The paths a patch names (old and new names of each file), read by git here from the text alone;
 * git's complaint when it cannot read it (the text came from inside the agent's environment).
 */
async function patchPaths(ws: Workspace, patch: string): Promise<Set<string> | string> {
  if (patch === "") return new Set();
  const r = await runGit(ws.git, ["apply", "--numstat", "-z", "-"], { input: patch });
  if (r.code !== 0) return (r.stderr.trim().split("\n")[0] || `exit ${r.code}`).slice(0, 300);
  const out = r.stdout;
  // per file: "added\tdeleted\tpath\0", or for a rename "added\tdeleted\t\0old\0new\0"
  const paths = new Set<string>();
  for (const part of out.split("\0")) {
    const tab = /^(?:-|\d+)\t(?:-|\d+)\t(.*)$/s.exec(part);
    const path = tab ? tab[1] : part;
    if (path !== "") paths.add(path);
  }
  return paths;
}

/**
 * The end of an in-place run in a sandbox. The agent could leave changes that no patch carries
 * (ignored or excluded files, bytecode, build output, a tracked file behind an index flag of its
 * own), and any of them could run here later; so the whole tree is compared with the snapshot
 * taken before it started:
 * - every difference the patch does not account for is undone (put back, or removed) and listed,
 *   whatever the choice;
 * - a tree that was clean at the start is put back entirely, then `apply` applies the patch with
 *   git here (so the tree holds exactly what the patch says, nothing else); `branch` and `discard`
 *   leave it as it was;
 * - with the person's own changes at the start (--allow-dirty) the patch's files stay as they are.
 */
async function carryOutChecked(
  ws: Workspace,
  snap: TreeSnapshot,
  choice: FinishChoice,
  patch: string,
  message: string,
): Promise<string[]> {
  const said: string[] = [];
  const changes = await compareTree(snap);
  const named = await patchPaths(ws, patch);
  if (typeof named === "string") {
    said.push(`the work folder's changes are not a patch git here can read (${named}): none of them is kept`);
    return [...said, ...(await carryOutChecked(ws, snap, choice, "", message))];
  }
  const accounted = (c: TreeChange) =>
    named.has(c.path) || (c.kind === "dir" && [...named].some((p) => p.startsWith(`${c.path}/`)));
  const hidden = changes.filter((c) => !accounted(c));
  let effective: FinishChoice = patch === "" ? "discard" : choice;
  if (patch !== "" && choice !== "apply" && !canUndoInPlace(ws)) {
    said.push(keptOwnChanges(ws));
    effective = "apply";
  }
  const whole = canUndoInPlace(ws);
  const undone = await undoChanges(snap, whole ? changes : hidden);
  let commit: string | null = null;
  if (effective === "apply" && whole) {
    const r = await applyToTree(ws, patch);
    if (r === null) said.push(`the changes stay in ${ws.repo} (nothing is staged)`);
    else {
      said.push(r);
      effective = "branch";
    }
  } else if (effective === "apply") said.push(`the changes stay in ${ws.repo} (nothing is staged)`);
  if (effective === "branch") commit = await commitOf(ws, patch, message);
  await closeWorkspace(ws);
  said.push(...hiddenLines(hidden, undone, snap));
  if (patch === "") {
    said.push(
      hidden.length === 0
        ? "the agent changed nothing: there is no patch"
        : `there is no patch; ${ws.repo} is as it was at the start`,
    );
    return said;
  }
  said.push(...(await afterwards(ws, effective, commit)));
  return said;
}

/** In place with a sandbox, when the changes could not be read: the tree is put back as it was at the start. */
export async function undoAll(ws: Workspace, snap: TreeSnapshot): Promise<string[]> {
  const changes = await compareTree(snap);
  const undone = await undoChanges(snap, changes);
  await closeWorkspace(ws);
  return [
    ...hiddenLines(changes, undone, snap),
    `${ws.repo} is as it was at the start (the patch file in the run folder is kept)`,
  ];
}

/** A path the agent named, as one line of plain text: quoted (JSON) when it holds a control character. */
function shownPath(path: string): string {
  return /[\u0000-\u001f\u007f-\u009f]/.test(path) ? JSON.stringify(path) : path;
}

/** The console's list of what the patch did not hold and what was done with each. */
function hiddenLines(hidden: TreeChange[], undone: Undone[], snap: TreeSnapshot): string[] {
  const checked = `compared with the tree at the start (${snap.stats.paths} paths)`;
  if (hidden.length === 0) return [`nothing outside the patch changed in the tree (${checked})`];
  const done = new Map(undone.map((u) => [u.change.path, u.done]));
  // what lies under an added or removed folder that is listed goes with it
  const folders = hidden.filter((c) => c.kind === "dir" && c.change !== "changed").map((c) => `${c.path}/`);
  const shown = hidden.filter((c) => !folders.some((f) => c.path.startsWith(f)));
  return [
    `${shown.length} change(s) in the tree are not in the patch (ignored or excluded files, bytecode, build output, ` +
      `or hidden from git by the agent; ${checked}); each is undone:`,
    ...shown.map(
      (c) =>
        `  ${c.change} ${c.kind === "dir" ? "folder" : c.kind === "link" ? "link" : "file"} ${shownPath(c.path)}: ${done.get(c.path)}`,
    ),
  ];
}
