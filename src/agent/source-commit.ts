import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { packageRoot } from "../package-root.js";

let cached: string | null | undefined;

/**
 * The git commit patchloop runs from, when its folder is a git checkout or a linked worktree (read from .git, no
 * process started; cached); null for an installed package. A `+dirty` mark is not attempted:
 * that would need a `git status`.
 */
export function sourceCommit(root = packageRoot()): string | null {
  if (root === packageRoot() && cached !== undefined) return cached;
  let commit: string | null = null;
  try {
    const { git, common } = gitDirs(root);
    const head = readFileSync(join(git, "HEAD"), "utf8").trim();
    if (/^[0-9a-f]{40}$/.test(head)) commit = head;
    else if (head.startsWith("ref: ")) commit = refCommit(git, common, head.slice(5));
  } catch {
    commit = null;
  }
  if (commit !== null && !/^[0-9a-f]{40}$/.test(commit)) commit = null;
  if (root === packageRoot()) cached = commit;
  return commit;
}

/**
 * The checkout's git folder and the folder its refs live in: `.git` itself, or in a linked
 * worktree (`.git` is a file `gitdir: PATH`) the worktree's folder and its `commondir`.
 */
function gitDirs(root: string): { git: string; common: string } {
  const dotGit = join(root, ".git");
  if (!statSync(dotGit).isFile()) return { git: dotGit, common: dotGit };
  const pointer = readFileSync(dotGit, "utf8").trim();
  if (!pointer.startsWith("gitdir: ")) throw new Error(`${dotGit} is not a gitdir pointer`);
  const git = resolve(root, pointer.slice(8));
  let common = git;
  try {
    common = resolve(git, readFileSync(join(git, "commondir"), "utf8").trim());
  } catch {}
  return { git, common };
}

/** The commit `ref` names: its loose file (the worktree's own, then the shared one), else packed-refs. */
function refCommit(git: string, common: string, ref: string): string | null {
  for (const dir of new Set([git, common])) {
    try {
      return readFileSync(join(dir, ref), "utf8").trim();
    } catch {}
  }
  const packed = readFileSync(join(common, "packed-refs"), "utf8");
  return (
    packed
      .split("\n")
      .find((l) => l.endsWith(` ${ref}`))
      ?.split(" ")[0] ?? null
  );
}
