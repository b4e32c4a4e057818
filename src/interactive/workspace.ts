import {
  copyFileSync,
  existsSync,
  lstatSync,
  realpathSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, rmdir, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import type { EnvironmentConfig } from "../config/schema.js";
import { configuredRepoPath, SANDBOX_REPO } from "../environments/index.js";
import { gitDirs } from "../util/git-dirs.js";
import { discoverGit, git, type HostRepo, runGit } from "./git.js";
import { type TreeSnapshot, takeSnapshot } from "./tree-snapshot.js";

/**
 * Where the agent works on the person's repository (docs/interactive.md):
 * - `worktree` (default): a git worktree of the repository at HEAD (detached), in a folder of the
 *   run; the person's own tree and index are never touched until they choose what to do with the
 *   patch (finish.ts);
 * - `in-place` (`--in-place`): the repository itself, refused when it has uncommitted changes unless
 *   `--allow-dirty`; the index is put back as it was when the run ends, so nothing is left staged.
 *
 * Git on this machine never looks at what the agent could write to find a repository: the person's
 * repository is pinned by path (HostRepo) from before the agent starts, and the agent's changes are
 * read inside its environment (run.ts), not here.
 */
export type WorkspaceMode = "worktree" | "in-place";

export interface Workspace {
  mode: WorkspaceMode;
  /** The person's repository (its top folder). */
  repo: string;
  /** The person's repository for host git: its git folder and work tree, found before the agent started. */
  git: HostRepo;
  /** The repository's common git folder (the main one when `repo` is itself a linked worktree). */
  commonDir: string;
  /** Where the agent works: the worktree, or `repo` in place. */
  dir: string;
  /** The commit the work starts from (HEAD of the repository). */
  base: string;
  runId: string;
  /** `git status --porcelain` of the repository when the run started (uncommitted changes). */
  changesAtStart: string[];
  /** in-place: a copy of the repository's index (`copy`), put back at the end to `index`. */
  savedIndex: { copy: string; index: string } | null;
  /**
   * The git folder of the agent's own (its HEAD, index and new objects), beside the repository's
   * common git folder, which a sandbox shows read-only: worktree: the worktree's admin folder under
   * `commonDir/worktrees/`; in place: a folder made like one in `scratch` (HEAD detached at `base`,
   * a copy of the index), used only by sandboxed environments.
   */
  admin: string;
  /** in-place: the run's scratch folder (the saved index, the agent's git folder). Removed at the end. */
  scratch: string | null;
  /**
   * in place with a sandbox: the whole tree as it was before the agent started (tree-snapshot.ts),
   * set by {@link environmentFor}; at the end whatever the patch does not account for is put back.
   */
  snapshot: TreeSnapshot | null;
}

export interface WorkspaceOptions {
  repo: string;
  mode: WorkspaceMode;
  allowDirty: boolean;
  runId: string;
  /** worktree: the folder to create it in (must not exist yet). */
  worktreeDir: string;
}

/** The branch a patch is committed on when the person chooses `branch`. */
export function branchOf(ws: Workspace): string {
  return `patchloop/${ws.runId}`;
}

/** `git status --porcelain` lines: tracked changes and untracked files that are not ignored. */
export async function uncommittedChanges(repo: HostRepo): Promise<string[]> {
  const out = await git(repo, ["status", "--porcelain", "--untracked-files=all"]);
  return out.split("\n").filter((l) => l !== "");
}

async function headOf(repo: HostRepo, shown: string): Promise<string> {
  const r = await runGit(repo, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (r.code !== 0)
    throw new ConfigError(
      `--repo ${shown}: the repository has no commit yet (HEAD is unborn); patchloop works from a commit. ` +
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

/** The repository's top folder, git folder and common git folder, read before any agent ran. */
async function locate(repo: string): Promise<{ top: string; gitDir: string; commonDir: string }> {
  const r = await discoverGit(repo, [
    "rev-parse",
    "--show-toplevel",
    "--absolute-git-dir",
    "--git-common-dir",
  ]);
  if (r.code !== 0) throw new ConfigError(`--repo ${repo}: git cannot read it: ${r.stderr.trim()}`);
  const [top, gitDir, common] = r.stdout.trim().split("\n");
  return { top, gitDir, commonDir: resolve(repo, common) };
}

/**
 * The git folder of a worktree just made, read from its `.git` file while only patchloop has
 * written it (gitDirs), as its real path, which is what `git rev-parse --absolute-git-dir` prints.
 * Reading the file spares `run` a git process at start-up (issue 45); a `.git` that does not read
 * as a worktree's pointer (with its `commondir`) is asked of git.
 */
async function worktreeAdmin(worktreeDir: string): Promise<string> {
  try {
    const { git, common } = gitDirs(worktreeDir);
    if (git !== common) return realpathSync(git);
  } catch {
    // not a pointer git wrote: git says where it is, or why not
  }
  const made = await discoverGit(worktreeDir, ["rev-parse", "--absolute-git-dir"]);
  if (made.code !== 0)
    throw new Error(`the new worktree ${worktreeDir} cannot be read: ${made.stderr.trim()}`);
  return made.stdout.trim();
}

/** Sets up the folder the agent works in; see {@link WorkspaceMode}. */
export async function openWorkspace(o: WorkspaceOptions): Promise<Workspace> {
  const { top, gitDir, commonDir } = await locate(o.repo);
  if (realpathSync(top) !== realpathSync(o.repo))
    throw new ConfigError(
      `--repo ${o.repo} is a folder inside the repository ${top}; give the repository's top folder (--repo ${top})`,
    );
  const pinned: HostRepo = { gitDir, workTree: o.repo };
  // the two reads are independent and run side by side (each git call is a process: they are most
  // of `run`'s start-up, bench/startup.ts)
  const [base, changesAtStart] = await Promise.all([headOf(pinned, o.repo), uncommittedChanges(pinned)]);
  const common = { repo: o.repo, git: pinned, commonDir, base, runId: o.runId, changesAtStart };
  if (o.mode === "in-place") {
    if (changesAtStart.length > 0 && !o.allowDirty)
      throw new ConfigError(
        `--in-place: ${o.repo} has uncommitted changes (${changesAtStart.length} file(s), e.g. ${changesAtStart[0].slice(3)}); ` +
          "they would end up in the patch. Commit or stash them, leave out --in-place (the agent then works " +
          "in a worktree and your tree is not touched), or add --allow-dirty to work on them anyway.",
      );
    const scratch = await mkdtemp(join(tmpdir(), "patchloop-inplace-"));
    const admin = join(scratch, "git");
    await mkdir(join(admin, "objects"), { recursive: true });
    // a git folder like a linked worktree's: its own HEAD (detached) and index, the rest in commonDir
    await writeFile(join(admin, "HEAD"), `${base}\n`);
    await writeFile(join(admin, "commondir"), `${commonDir}\n`);
    let savedIndex: Workspace["savedIndex"] = null;
    const index = join(gitDir, "index");
    if (existsSync(index)) {
      savedIndex = { copy: join(scratch, "index.saved"), index };
      await copyKeepingTimes(index, savedIndex.copy);
      await copyKeepingTimes(index, join(admin, "index"));
    }
    return { ...common, mode: "in-place", dir: o.repo, savedIndex, admin, scratch, snapshot: null };
  }
  // run ids are made by run.ts (a time stamp and hex digits): always a valid branch name
  if (!/^[0-9A-Za-z][0-9A-Za-z-]*$/.test(o.runId))
    throw new Error(`the run id ${o.runId} does not make a valid branch name patchloop/${o.runId}`);
  if (existsSync(o.worktreeDir))
    throw new Error(`${o.worktreeDir} exists already; it is the worktree's place`);
  await mkdir(dirname(o.worktreeDir), { recursive: true });
  // detached: the worktree has no branch the agent could move; `branch` at the end makes one
  await git(pinned, ["worktree", "add", "--quiet", "--detach", o.worktreeDir, base]);
  const admin = await worktreeAdmin(o.worktreeDir);
  return {
    ...common,
    mode: "worktree",
    dir: o.worktreeDir,
    savedIndex: null,
    admin,
    scratch: null,
    snapshot: null,
  };
}

/**
 * Where bwrap shows the work folder: `environment.cwd`, else /testbed, as in a batch; the agent
 * never sees the host path of the worktree or repository.
 */
export function sandboxRepoPath(config: EnvironmentConfig): string {
  return configuredRepoPath(config) ?? SANDBOX_REPO;
}

/**
 * The environment config for a sandbox (bwrap, docker, podman). It shows the repository's git
 * folders read-only, so the agent can change none of the person's config, hooks, refs or index,
 * and gives the agent's git a folder of its own for what it writes (Workspace.admin: HEAD, index,
 * and new objects, which borrow the repository's):
 * - worktree: the worktree read-write, its admin folder read-write;
 * - in place: the tree read-write but its `.git` and git folders read-only; the agent's git is
 *   pointed at the scratch git folder (GIT_DIR, GIT_WORK_TREE). The whole tree is recorded first
 *   (ws.snapshot): what the agent leaves that the patch does not hold is put back at the end.
 * Local environments are returned unchanged: there the agent can reach everything anyway.
 */
export async function environmentFor(ws: Workspace, config: EnvironmentConfig): Promise<EnvironmentConfig> {
  const kind = config.environment_class;
  if (kind === "local") return config;
  const objects = join(ws.admin, "objects");
  await mkdir(objects, { recursive: true });
  const env: Record<string, string> = {
    GIT_OBJECT_DIRECTORY: objects,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(ws.commonDir, "objects"),
  };
  // bwrap shows the work folder at /testbed (or environment.cwd), as a batch does; a container
  // mounts it at its own path (a config's container path belongs to an image's repository)
  const inside = kind === "bwrap" ? sandboxRepoPath(config) : ws.dir;
  const readOnly = [{ from: ws.commonDir, to: ws.commonDir }];
  if (ws.mode === "in-place") {
    const dotGit = join(ws.repo, ".git");
    if (lstatSync(dotGit, { throwIfNoEntry: false })?.isSymbolicLink())
      throw new ConfigError(
        `--in-place with ${kind}: ${dotGit} is a symbolic link, which the sandbox cannot show read-only; run without --in-place`,
      );
    // the tree's own .git (a folder, or the file of a linked worktree) read-only where the tree is
    // shown, and the git folder at its own path, which the agent's git folder names
    const atOwnPath = [ws.git.gitDir].filter((p) => p !== ws.commonDir && existsSync(p));
    readOnly.push(...atOwnPath.map((p) => ({ from: p, to: p })));
    if (existsSync(dotGit) && (inside !== ws.repo || dotGit !== ws.commonDir))
      readOnly.push({ from: dotGit, to: posix.join(inside, ".git") });
    Object.assign(env, { GIT_DIR: ws.admin, GIT_WORK_TREE: inside });
    if (ws.scratch) ws.snapshot = await takeSnapshot(ws.repo, ws.git, join(ws.scratch, "start"));
  }
  const shown = [...readOnly.map((m) => ({ ...m, rw: false })), { from: ws.admin, to: ws.admin, rw: true }];
  const merged = { ...config.env, ...env };
  if (kind === "bwrap")
    return {
      ...config,
      env: merged,
      binds: [...config.binds, ...shown.map((m) => `${m.from}:${m.to}:${m.rw ? "rw" : "ro"}`)],
    };
  return {
    ...config,
    env: merged,
    run_args: [
      ...config.run_args,
      ...shown.flatMap((m) => ["--volume", m.rw ? `${m.from}:${m.to}` : `${m.from}:${m.to}:ro`]),
    ],
  };
}

/**
 * Ends the workspace after the person's choice was carried out: in place, the index is put back
 * (nothing left staged) and the scratch folder goes; a worktree is removed with everything in it.
 * The worktree's folders are removed here as files (links not followed), not by `git worktree
 * remove`, which would read the worktree's `.git` file and git folder: both the agent could write.
 */
export async function closeWorkspace(ws: Workspace): Promise<void> {
  if (ws.mode === "in-place") {
    if (ws.savedIndex) {
      await copyKeepingTimes(ws.savedIndex.copy, ws.savedIndex.index);
      // the saved index's stat data is older than the files: refresh it, so status is quick and exact
      await runGit(ws.git, ["update-index", "-q", "--refresh"]);
    }
    if (ws.scratch) await rm(ws.scratch, { recursive: true, force: true });
    return;
  }
  await rm(ws.dir, { recursive: true, force: true });
  await rm(ws.admin, { recursive: true, force: true });
  // the folder that held it (the run folder's worktree/), when nothing else is in it
  await rmdir(dirname(ws.dir)).catch(() => {});
}

/** How to remove a worktree patchloop left, without running git in the tree the agent wrote. */
export function removalHint(ws: Workspace): string {
  return `remove it with: rm -rf ${ws.dir} && git -C ${ws.repo} worktree prune`;
}

/**
 * Ends the workspace at once, synchronously, when the person quits (a third Ctrl-C, a second
 * SIGTERM) and the process exits right after: a worktree is removed (its folder and its git folder,
 * so the person's repository no longer lists it); in place, the index is put back and the run's
 * scratch folder goes, but the tree is not checked (there is no time to). Returns the lines that
 * say what was done, or where the worktree is and how to remove it.
 */
export function quitWorkspace(ws: Workspace): string[] {
  if (ws.mode === "in-place") {
    try {
      if (ws.savedIndex) {
        copyFileSync(ws.savedIndex.copy, ws.savedIndex.index);
        const st = statSync(ws.savedIndex.copy);
        utimesSync(ws.savedIndex.index, st.atime, st.mtime);
      }
      if (ws.scratch) rmSync(ws.scratch, { recursive: true, force: true });
    } catch {
      // the lines below say what stays
    }
    return [
      `quit at once: the agent's changes stay in ${ws.repo}` +
        (ws.snapshot
          ? "; the tree was not compared with its state at the start, so files the agent wrote outside the patch " +
            `(ignored ones included) may remain: git -C ${ws.repo} status --ignored lists them`
          : ""),
    ];
  }
  try {
    rmSync(ws.dir, { recursive: true, force: true });
    rmSync(ws.admin, { recursive: true, force: true });
    try {
      rmdirSync(dirname(ws.dir));
    } catch {
      // not empty, or gone: either is fine
    }
    return [`quit at once: the worktree ${ws.dir} is removed, and the agent's changes with it`];
  } catch (err) {
    return [
      `quit at once: the worktree is left at ${ws.dir} (${(err as Error).message}); ${removalHint(ws)}`,
    ];
  }
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
    `the agent works in a worktree of ${ws.repo} at ${ws.base.slice(0, 12)} (HEAD): ${ws.dir}; ` +
      "your tree does not change until you choose at the end",
  );
  if (ws.changesAtStart.length > 0)
    say(
      `your ${ws.changesAtStart.length} uncommitted change(s) are not in the worktree (it starts from HEAD) and stay as they are`,
    );
  return lines;
}
