import { PATCH_PATHSPECS } from "../config/template-vars.js";
import type { Environment } from "../environments/types.js";
import { shellQuote } from "../util/shell-quote.js";

/**
 * The script behind {@link workTreeDiff}, for a shell whose working directory is in the work tree.
 * It stages into a temporary index made fresh from `base` (the repository's own index is never
 * read or written, so what the agent staged or committed since does not matter, nor any flag it set
 * on an entry: `git update-index --assume-unchanged` or `--skip-worktree` cannot hide a change): the
 * changes of files `base` has, then new files that neither the ignore rules nor PATCH_EXCLUDES
 * match, and prints `git diff --cached --binary` against `base`. A fresh index has no stat data, so
 * every file `base` has is read once (measured in docs/interactive.md).
 */
export function workTreeDiffScript(base: string): string {
  // settings that would let git skip a file (stat data trusted blindly, a sparse checkout) are off
  const g = 'GIT_INDEX_FILE="$tmp/index" git -c core.ignoreStat=false -c core.sparseCheckout=false';
  return [
    "set -e",
    "tmp=$(mktemp -d)",
    `trap 'rm -rf "$tmp"' EXIT`,
    `${g} read-tree ${shellQuote(base)} >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }`,
    `${g} add -u >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }`,
    `${g} add -A -- :/ ${PATCH_PATHSPECS} >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }`,
    `${g} -c core.quotepath=off diff --cached --binary --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ ${shellQuote(base)} 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }`,
  ].join("\n");
}

/**
 * The work tree's changes against `base` (new files included, except ignored ones and those in
 * PATCH_EXCLUDES) as a unified diff that `git apply` takes on the base commit. A temporary index is
 * used, so the repository's own index is untouched.
 */
export async function workTreeDiff(env: Environment, base: string, timeout = 120): Promise<string> {
  const r = await env.exec(workTreeDiffScript(base), { timeout });
  if (r.timedOut)
    throw new Error(
      `git diff of the work tree did not finish within ${timeout} s (a very large or endless file in the tree?)`,
    );
  if (r.returncode !== 0) {
    throw new Error(`git diff of the work tree failed (exit ${r.returncode}): ${r.output.slice(0, 500)}`);
  }
  // a patch with its middle cut out would apply wrongly, or not at all
  if (r.truncated)
    throw new Error(
      `the work tree's diff is longer than the environment keeps of a command's output (environment.capture_limit); ` +
        "it was not taken. Raise environment.capture_limit to keep a patch this large.",
    );
  return r.output;
}

/** The commit the work tree started from, or null outside a git repository. */
export async function headCommit(env: Environment): Promise<string | null> {
  const r = await env.exec("git rev-parse HEAD", { timeout: 60 });
  return r.returncode === 0 ? r.output.trim() : null;
}
