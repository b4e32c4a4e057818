import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { SwebenchInstance } from "../types.js";

const run = promisify(execFile);

/** A private checkout of an instance's repository at its base commit; `remove` deletes it. */
export interface Workspace {
  /** The repository root (a git repository whose HEAD is the base commit, detached). */
  dir: string;
  remove(): Promise<void>;
}

/** `owner/repo` -> `DIR/owner__repo`: the layout `--repos-dir` expects (one clone per repository). */
export function cloneDirFor(reposDir: string, repo: string): string {
  return join(resolve(reposDir), repo.replace("/", "__"));
}

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`git ${args.join(" ")} (in ${cwd}) failed: ${(e.stderr || e.message).trim()}`);
  }
}

const gitDirs = new Map<string, Promise<string>>();

/** The absolute git directory of a clone (bare or not), looked up once per clone. */
function gitDirOf(clone: string): Promise<string> {
  let found = gitDirs.get(clone);
  if (!found) {
    found = git(clone, ["rev-parse", "--path-format=absolute", "--git-common-dir"]).then((s) => s.trim());
    found.catch(() => gitDirs.delete(clone));
    gitDirs.set(clone, found);
  }
  return found;
}

/**
 * Makes a fresh repository under `root` that borrows the clone's objects (git alternates: nothing
 * is copied, nothing in the clone is written, so any number can be made at once) and checks out
 * the row's base commit, detached. The new repository has no branches, tags or remotes, so later
 * commits of the project are not reachable through `git log --all`.
 * Rejects with a readable Error when the clone or the commit is missing.
 */
export async function createWorkspace(
  reposDir: string,
  row: SwebenchInstance,
  root: string,
): Promise<Workspace> {
  const clone = cloneDirFor(reposDir, row.repo);
  if (!existsSync(clone)) {
    throw new Error(
      `no clone of ${row.repo} at ${clone}: --repos-dir must hold one git clone per repository, named owner__repo ` +
        `(e.g. git clone https://github.com/${row.repo} ${clone})`,
    );
  }
  const gitDir = await gitDirOf(clone).catch((err: Error) => {
    throw new Error(`${clone} is not a git repository: ${err.message}`);
  });
  const base = await mkdtemp(join(root, `${row.instance_id.replace(/[^\w.-]/g, "_")}-`));
  const dir = join(base, "repo");
  const remove = () => rm(base, { recursive: true, force: true, maxRetries: 3 });
  try {
    await git(base, ["init", "-q", "--template=", dir]);
    await writeFile(join(dir, ".git", "objects", "info", "alternates"), `${join(gitDir, "objects")}\n`);
    if (existsSync(join(gitDir, "shallow")))
      await copyFile(join(gitDir, "shallow"), join(dir, ".git", "shallow"));
    await git(dir, ["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", row.base_commit]).catch(
      (err: Error) => {
        throw new Error(
          `cannot check out base commit ${row.base_commit} of ${row.instance_id} from ${clone}; ` +
            `fetch it there (git -C ${clone} fetch origin ${row.base_commit}). ${err.message}`,
        );
      },
    );
  } catch (err) {
    await remove();
    throw err;
  }
  return { dir, remove };
}
