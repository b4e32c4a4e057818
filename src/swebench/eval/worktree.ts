import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createLocalEnvironment } from "../../environments/local.js";
import type { Environment } from "../../environments/types.js";
import { createWorkspace } from "../batch/workspace.js";
import type { SwebenchInstance } from "../types.js";
import type { EnvironmentProvider } from "./eval-environment.js";

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
   * Opens the environment on the worktree and says where its scratch folder is; default: the
   * local environment, scratch in a host temp folder beside the worktree.
   */
  open?: (
    worktree: string,
    scratchOnHost: string,
    /** The object stores the work tree borrows (read only): a sandbox must show them at their paths. */
    objectDirs: string[],
  ) => Promise<{ env: Environment; scratchDir: string; repoDir?: string }>;
  /** Recorded kind (default `local`, or `bwrap` for the sandbox). */
  kind?: string;
}

/**
 * Instances graded on the host (or in a sandbox around it): a fresh checkout of
 * `reposDir/owner__repo` at the base commit made by the batch's checkout module
 * (src/swebench/batch/workspace.ts): no branches, tags, remotes, nor any object after the base
 * commit, as in the harness's images, so nothing a patch runs can read the later history. Removed
 * afterwards.
 */
export function worktreeProvider(options: WorktreeProviderOptions): EnvironmentProvider {
  return async (instance: SwebenchInstance) => {
    if (options.workRoot) await mkdir(options.workRoot, { recursive: true });
    const prefix = `patchloop-eval-${instance.instance_id.replace(/[^\w.-]/g, "_")}-`;
    const base = await mkdtemp(join(options.workRoot ? resolve(options.workRoot) : tmpdir(), prefix));
    const removeBase = () => rm(base, { recursive: true, force: true });
    let ws: Awaited<ReturnType<typeof createWorkspace>>;
    try {
      ws = await createWorkspace(options.reposDir, instance, base);
    } catch (err) {
      await removeBase();
      throw err;
    }
    const worktree = ws.dir;
    // Beside the work tree (both go with the instance's folder).
    const scratch = join(dirname(worktree), "scratch");
    await mkdir(scratch);
    const remove = async () => {
      await ws.remove();
      await removeBase();
    };
    let opened: { env: Environment; scratchDir: string; repoDir?: string };
    try {
      opened = options.open
        ? await options.open(worktree, scratch, ws.objectDirs)
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
