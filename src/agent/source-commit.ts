import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";

let cached: string | null | undefined;

/**
 * The git commit patchloop runs from, when its folder is a git checkout (read from .git, no
 * process started; cached); null for an installed package. A `+dirty` mark is not attempted:
 * that would need a `git status`.
 */
export function sourceCommit(root = packageRoot()): string | null {
  if (root === packageRoot() && cached !== undefined) return cached;
  let commit: string | null = null;
  try {
    const git = join(root, ".git");
    const head = readFileSync(join(git, "HEAD"), "utf8").trim();
    if (/^[0-9a-f]{40}$/.test(head)) commit = head;
    else if (head.startsWith("ref: ")) {
      const ref = head.slice(5);
      try {
        commit = readFileSync(join(git, ref), "utf8").trim();
      } catch {
        const packed = readFileSync(join(git, "packed-refs"), "utf8");
        commit =
          packed
            .split("\n")
            .find((l) => l.endsWith(` ${ref}`))
            ?.split(" ")[0] ?? null;
      }
    }
  } catch {
    commit = null;
  }
  if (commit !== null && !/^[0-9a-f]{40}$/.test(commit)) commit = null;
  if (root === packageRoot()) cached = commit;
  return commit;
}
