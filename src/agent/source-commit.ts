import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";
import { gitDirs } from "../util/git-dirs.js";

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
