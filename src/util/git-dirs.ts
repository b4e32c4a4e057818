import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * A checkout's git folder and the folder its refs and objects live in, read from the files alone
 * (no git process): `.git` itself when it is a folder; in a linked worktree (`.git` is a file
 * `gitdir: PATH`, PATH absolute or relative to the worktree) the worktree's git folder and its
 * `commondir`. Throws when `.git` is missing or is a file that is not such a pointer.
 */
export function gitDirs(root: string): { git: string; common: string } {
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
