import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { createLocalEnvironment } from "../../environments/local.js";
import type { Environment } from "../../environments/types.js";
import type { SwebenchInstance } from "../types.js";
import type { EnvironmentProvider } from "./eval-environment.js";

const run = promisify(execFile);

/** `owner/repo` -> `DIR/owner__repo`, the layout `--repos-dir` expects (one clone per repository). */
export function repoClonePath(reposDir: string, repo: string): string {
  return join(resolve(reposDir), repo.replace("/", "__"));
}

// git worktree add/remove on one repository must not run concurrently (its .git lock).
const locks = new Map<string, Promise<unknown>>();
function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(task, task);
  locks.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`git ${args.join(" ")} in ${cwd} failed: ${(e.stderr || e.message).trim()}`);
  }
}

/** Options of `worktreeProvider`. */
export interface WorktreeProviderOptions {
  /** Folder holding one git clone per repository, named `owner__repo`. */
  reposDir: string;
  /** Variables of every command (e.g. PATH with a venv first); on top of the host's for `local`. */
  env?: Record<string, string>;
  /** Bytes of output kept per command by the default local environment (default 100 MB). */
  captureLimit?: number;
  /** Where the per-instance folders (worktree + scratch) are made; default the system temp dir. */
  workRoot?: string;
  /**
   * `worktree` (default): `git worktree add --detach`, cheap, metadata in the clone's .git.
   * `clone`: a local `git clone` (objects hard-linked, so cheap on one filesystem) + checkout:
   * everything git needs is inside the copy, for sandboxes (bwrap) that see and may write only
   * the copy (not the clone under --repos-dir, nor anything else under /tmp).
   */
  mode?: "worktree" | "clone";
  /**
   * Opens the environment on the worktree and says where its scratch folder is; default: the
   * local environment, scratch in a host temp folder beside the worktree.
   */
  open?: (
    worktree: string,
    scratchOnHost: string,
  ) => Promise<{ env: Environment; scratchDir: string; repoDir?: string }>;
  /** Recorded kind (default `local`, or `bwrap` for the sandbox). */
  kind?: string;
}

/**
 * Instances graded on the host (or in a sandbox around it): a fresh `git worktree add --detach`
 * of `reposDir/owner__repo` at the base commit, removed afterwards (`git worktree remove --force`,
 * then the folder, then `git worktree prune`).
 */
export function worktreeProvider(options: WorktreeProviderOptions): EnvironmentProvider {
  return async (instance: SwebenchInstance) => {
    const clone = repoClonePath(options.reposDir, instance.repo);
    if (!existsSync(join(clone, ".git")) && !existsSync(join(clone, "HEAD"))) {
      throw new Error(
        `no clone of ${instance.repo} at ${clone}: --repos-dir must hold one git clone per repository, named owner__repo`,
      );
    }
    if (options.workRoot) await mkdir(options.workRoot, { recursive: true });
    const prefix = `patchloop-eval-${instance.instance_id.replace(/[^\w.-]/g, "_")}-`;
    const base = await mkdtemp(join(options.workRoot ? resolve(options.workRoot) : tmpdir(), prefix));
    const worktree = join(base, "repo");
    const scratch = join(base, "scratch");
    await mkdir(scratch);
    const copy = options.mode === "clone";
    const remove = async () => {
      if (copy) {
        await rm(base, { recursive: true, force: true });
        return;
      }
      await serialized(clone, async () => {
        await git(clone, ["worktree", "remove", "--force", worktree]).catch(() => undefined);
        await rm(base, { recursive: true, force: true });
        await git(clone, ["worktree", "prune"]).catch(() => undefined);
      });
    };
    try {
      if (copy) {
        await git(base, ["clone", "-q", "--no-checkout", clone, worktree]);
        await git(worktree, ["checkout", "-q", "--detach", instance.base_commit]);
      } else {
        await serialized(clone, () =>
          git(clone, ["worktree", "add", "--detach", worktree, instance.base_commit]),
        );
      }
    } catch (err) {
      await rm(base, { recursive: true, force: true });
      throw err;
    }
    let opened: { env: Environment; scratchDir: string; repoDir?: string };
    try {
      opened = options.open
        ? await options.open(worktree, scratch)
        : {
            env: createLocalEnvironment({
              cwd: worktree,
              env: options.env,
              captureLimit: options.captureLimit ?? 100_000_000,
            }),
            scratchDir: scratch,
          };
    } catch (err) {
      await remove();
      throw err;
    }
    return {
      env: opened.env,
      kind: options.kind ?? "local",
      hostPython: true,
      repoDir: opened.repoDir ?? worktree,
      hostRepoDir: worktree,
      scratchDir: opened.scratchDir,
      activate: [],
      safeDirectory: false,
      installByDefault: false,
      cleanup: async () => {
        await opened.env.close();
        await remove();
      },
    };
  };
}
