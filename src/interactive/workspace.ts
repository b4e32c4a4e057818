import { existsSync, realpathSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, rmdir, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import type { EnvironmentConfig } from "../config/schema.js";
import { git, runGit } from "./git.js";

/**
 * Where the agent works on the person's repository (docs/interactive.md):
 * - `worktree` (default): a git worktree of the repository at HEAD, on the branch
 *   `patchloop/<run-id>`, in a folder of the run; the person's own tree and index are never touched
 *   until they choose what to do with the patch (finish.ts);
 * - `in-place` (`--in-place`): the repository itself, refused when it has uncommitted changes unless
 *   `--allow-dirty`; the index is put back as it was when the run ends, so nothing is left staged.
 */
export type WorkspaceMode = "worktree" | "in-place";

export interface Workspace {
  mode: WorkspaceMode;
  /** The person's repository (its top folder). */
  repo: string;
  /** Where the agent works: the worktree, or `repo` in place. */
  dir: string;
  /** The commit the work starts from (HEAD of the repository). */
  base: string;
  runId: string;
  /** worktree: the branch the worktree is on (`patchloop/<run-id>`); in-place: null. */
  branch: string | null;
  /** `git status --porcelain` of the repository when the run started (uncommitted changes). */
  changesAtStart: string[];
  /** in-place: a copy of the repository's index (`copy`), put back at the end to `index`. */
  savedIndex: { copy: string; index: string } | null;
  /** worktree: the worktree's own git folder and the repository's, for sandboxed environments. */
  gitDirs: { admin: string; common: string } | null;
}

export interface WorkspaceOptions {
  repo: string;
  mode: WorkspaceMode;
  allowDirty: boolean;
  runId: string;
  /** worktree: the folder to create it in (must not exist yet). */
  worktreeDir: string;
}

/** `git status --porcelain` lines: tracked changes and untracked files that are not ignored. */
export async function uncommittedChanges(repo: string): Promise<string[]> {
  const out = await git(repo, ["status", "--porcelain", "--untracked-files=all"]);
  return out.split("\n").filter((l) => l !== "");
}

async function headOf(repo: string): Promise<string> {
  const r = await runGit(repo, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (r.code !== 0)
    throw new ConfigError(
      `--repo ${repo}: the repository has no commit yet (HEAD is unborn); patchloop works from a commit. ` +
        "Commit something first (git commit), then run again.",
    );
  return r.stdout.trim();
}

/**
 * Copies an index file with its modification time. Git trusts an entry's stat data only when the
 * file was modified before the index was written (racy-git): an index put back with a new time
 * would hide a same-size edit the agent made within the second the entry was recorded in.
 */
async function copyKeepingTimes(from: string, to: string): Promise<void> {
  const st = await stat(from);
  await copyFile(from, to);
  await utimes(to, st.atime, st.mtime);
}

/** Sets up the folder the agent works in; see {@link WorkspaceMode}. */
export async function openWorkspace(o: WorkspaceOptions): Promise<Workspace> {
  // one git call for both folders; the two reads below are independent and run side by side
  // (each git call is a process: they are most of `run`'s start-up, bench/startup.ts)
  const [top, gitDir] = (await git(o.repo, ["rev-parse", "--show-toplevel", "--absolute-git-dir"]))
    .trim()
    .split("\n");
  if (realpathSync(top) !== realpathSync(o.repo))
    throw new ConfigError(
      `--repo ${o.repo} is a folder inside the repository ${top}; give the repository's top folder (--repo ${top})`,
    );
  const [base, changesAtStart] = await Promise.all([headOf(o.repo), uncommittedChanges(o.repo)]);
  const common = { repo: o.repo, base, runId: o.runId, changesAtStart };
  if (o.mode === "in-place") {
    if (changesAtStart.length > 0 && !o.allowDirty)
      throw new ConfigError(
        `--in-place: ${o.repo} has uncommitted changes (${changesAtStart.length} file(s), e.g. ${changesAtStart[0].slice(3)}); ` +
          "they would end up in the patch. Commit or stash them, leave out --in-place (the agent then works " +
          "in a worktree and your tree is not touched), or add --allow-dirty to work on them anyway.",
      );
    let savedIndex: Workspace["savedIndex"] = null;
    const index = join(gitDir, "index");
    if (existsSync(index)) {
      savedIndex = { copy: join(await mkdtemp(join(tmpdir(), "patchloop-index-")), "index"), index };
      await copyKeepingTimes(index, savedIndex.copy);
    }
    return { ...common, mode: "in-place", dir: o.repo, branch: null, savedIndex, gitDirs: null };
  }
  const branch = `patchloop/${o.runId}`;
  // run ids are made by run.ts (a time stamp and hex digits): always a valid branch name
  if (!/^[0-9A-Za-z][0-9A-Za-z-]*$/.test(o.runId))
    throw new Error(`the run id ${o.runId} does not make a valid branch name ${branch}`);
  if (existsSync(o.worktreeDir))
    throw new Error(`${o.worktreeDir} exists already; it is the worktree's place`);
  await mkdir(dirname(o.worktreeDir), { recursive: true });
  await git(o.repo, ["worktree", "add", "--quiet", "-b", branch, o.worktreeDir, base]);
  const [admin, commonRel] = (
    await git(o.worktreeDir, ["rev-parse", "--absolute-git-dir", "--git-common-dir"])
  )
    .trim()
    .split("\n");
  const commonDir = resolve(o.worktreeDir, commonRel);
  return {
    ...common,
    mode: "worktree",
    dir: o.worktreeDir,
    branch,
    savedIndex: null,
    gitDirs: { admin, common: commonDir },
  };
}

/**
 * The environment config for a worktree in a sandbox (bwrap, docker, podman), which shows only the
 * worktree: its `.git` file points into the repository's git folder. That folder is shown read-only
 * (the agent cannot change the person's refs, hooks or config), the worktree's own git folder and
 * its branch's ref read-write, and new objects go to the worktree's git folder (GIT_OBJECT_DIRECTORY,
 * borrowing the repository's objects). Local environments and in-place runs are returned unchanged.
 */
export async function environmentFor(ws: Workspace, config: EnvironmentConfig): Promise<EnvironmentConfig> {
  const kind = config.environment_class;
  if (!ws.gitDirs || kind === "local") return config;
  const { admin, common } = ws.gitDirs;
  const objects = join(admin, "objects");
  await mkdir(objects, { recursive: true });
  const writable = [admin];
  for (const d of [
    join(common, "refs", "heads", "patchloop"),
    join(common, "logs", "refs", "heads", "patchloop"),
  ])
    if (existsSync(d)) writable.push(d);
  const env = {
    ...config.env,
    GIT_OBJECT_DIRECTORY: objects,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(common, "objects"),
  };
  if (kind === "bwrap")
    return {
      ...config,
      env,
      binds: [...config.binds, `${common}:${common}:ro`, ...writable.map((d) => `${d}:${d}:rw`)],
    };
  return {
    ...config,
    env,
    run_args: [
      ...config.run_args,
      "--volume",
      `${common}:${common}:ro`,
      ...writable.flatMap((d) => ["--volume", `${d}:${d}`]),
    ],
  };
}

/**
 * Ends the workspace after the person's choice was carried out: in-place, the index is put back
 * (nothing left staged); a worktree is removed with everything in it, and its branch deleted unless
 * `keepBranch` (the branch then holds the patch as a commit, finish.ts).
 */
export async function closeWorkspace(ws: Workspace, keepBranch: boolean): Promise<void> {
  if (ws.mode === "in-place") {
    if (ws.savedIndex) {
      await copyKeepingTimes(ws.savedIndex.copy, ws.savedIndex.index);
      await rm(dirname(ws.savedIndex.copy), { recursive: true, force: true });
      // the saved index's stat data is older than the files: refresh it, so status is quick and exact
      await runGit(ws.repo, ["update-index", "-q", "--refresh"]);
    }
    return;
  }
  await git(ws.repo, ["worktree", "remove", "--force", "--force", ws.dir]);
  // the folder that held it (the run folder's worktree/), when nothing else is in it
  await rmdir(dirname(ws.dir)).catch(() => {});
  if (!keepBranch && ws.branch) await git(ws.repo, ["branch", "-D", "--quiet", ws.branch]);
}

/** Says where the agent works, before it starts. */
export function describeWorkspace(ws: Workspace): string[] {
  const lines: string[] = [];
  const say = (m: string) => lines.push(m);
  if (ws.mode === "in-place") {
    say(
      `--in-place: the agent works in ${ws.repo} itself` +
        (ws.changesAtStart.length > 0
          ? ` (--allow-dirty: your ${ws.changesAtStart.length} uncommitted change(s) will be part of the patch)`
          : ""),
    );
    return lines;
  }
  say(
    `the agent works in a worktree of ${ws.repo} at ${ws.base.slice(0, 12)} (HEAD), on the branch ${ws.branch}: ${ws.dir}; ` +
      "your tree does not change until you choose at the end",
  );
  if (ws.changesAtStart.length > 0)
    say(
      `your ${ws.changesAtStart.length} uncommitted change(s) are not in the worktree (it starts from HEAD) and stay as they are`,
    );
  return lines;
}
