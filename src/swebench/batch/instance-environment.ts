import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config, EnvironmentConfig } from "../../config/schema.js";
import { createEnvironment } from "../../environments/index.js";
import type { Environment } from "../../environments/types.js";
import { shellQuote } from "../../tools/shell-quote.js";
import { imageForRow } from "../images.js";
import type { SwebenchInstance } from "../types.js";
import type { InstanceEnvironment } from "./types.js";
import { type GitRunner, prepareWorkspace } from "./workspace.js";

/** Repository root inside SWE-bench instance images. */
export const TESTBED = "/testbed";

/** Where local batches put their work trees: `<tmp>/patchloop/<instance id>`. */
export const STABLE_ROOT = () => join(tmpdir(), "patchloop");

/** What `openInstanceEnvironment` needs beyond the config. */
export interface OpenInstanceOptions {
  /** Folder of `owner__repo` clones; required for local and bwrap. */
  reposDir?: string;
  /** Where work trees are made (bwrap); see workspace-root.ts. */
  workRoot: string;
  /** local: the folder of the stable work trees (default `<tmp>/patchloop`). */
  stableRoot?: string;
  /** Label of the containers (`patchloop.run`). */
  runId?: string;
  warn?: (message: string) => void;
}

/**
 * The working directory the model is shown for an instance in a batch (what `{{ cwd }}` renders):
 * containers and bwrap: environment.cwd, else /testbed; local: the stable work tree path.
 */
export function instanceCwd(config: EnvironmentConfig, instanceId: string): string {
  if (config.environment_class === "local") return join(STABLE_ROOT(), instanceId.replace(/[^\w.-]/g, "_"));
  return config.cwd || TESTBED;
}

/**
 * The image of an instance: `environment.image` when the config sets one (the same image for
 * every instance), else `environment.image_template` when set, else the row's own image (v5
 * `image`, `image_name`), else the SWE-bench instance image (see `imageForRow`).
 */
export function imageFor(config: EnvironmentConfig, row: SwebenchInstance): string {
  return imageForRow(row, config);
}

/** Runs git through `env` (output: stdout and stderr together, used in error messages only). */
function gitIn(env: Environment): GitRunner {
  return async (dir, args) => {
    const r = await env.exec(["git", ...args].map(shellQuote).join(" "), { cwd: dir, timeout: 600 });
    if (r.returncode !== 0) throw new Error(`git ${args.join(" ")} (in ${dir}) failed: ${r.output.trim()}`);
    return r.output;
  };
}

/**
 * Opens the environment of one instance:
 * - docker / podman: a container of the instance image, working in `environment.cwd` (default /testbed);
 * - local / bwrap: a fresh checkout of `reposDir/owner__repo` at the base commit with no later
 *   history (see workspace.ts), which `cleanup` deletes after closing the environment; bwrap shows
 *   it at /testbed.
 */
export async function openInstanceEnvironment(
  config: Config,
  row: SwebenchInstance,
  options: OpenInstanceOptions,
): Promise<InstanceEnvironment> {
  const e = config.environment;
  if (e.environment_class === "docker" || e.environment_class === "podman") {
    const env = await createEnvironment(
      { ...e, image: imageFor(e, row), cwd: e.cwd || TESTBED },
      { runId: options.runId, warn: options.warn },
    );
    return { env, cleanup: () => env.close() };
  }
  if (!options.reposDir) {
    throw new Error(
      `environment ${e.environment_class} needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo`,
    );
  }
  // local: the model sees the work tree's real path, so it is a stable one (/tmp/patchloop/<id>):
  // prompts, tokens and trajectories do not depend on where this run's checkout happens to be.
  const local = e.environment_class === "local";
  const ws = local
    ? await prepareWorkspace(options.reposDir, row, options.stableRoot ?? STABLE_ROOT(), { stable: true })
    : await prepareWorkspace(options.reposDir, row, options.workRoot);
  let env: Environment | undefined;
  try {
    // local: the work tree is the task's folder. bwrap: it appears at environment.cwd (the swebench
    // configs say /testbed), or /testbed, as in the instance images; its history store is shown
    // read-only at its own path so git works inside.
    env = await createEnvironment(
      { ...e, cwd: e.environment_class === "bwrap" ? e.cwd : "" },
      {
        repoDir: ws.dir,
        runId: options.runId,
        warn: options.warn,
        hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
        binds: ws.objectDirs.map((d) => ({ source: d, target: d, writable: false })),
      },
    );
    // Locally the checkout goes through the environment, whose helper shell starts it more cheaply
    // than a spawn from this process (see environments/launcher.ts).
    await ws.checkout(e.environment_class === "local" ? gitIn(env) : undefined);
    const opened = env;
    return {
      env: opened,
      baseCommit: row.base_commit,
      cleanup: async () => {
        try {
          await opened.close();
        } finally {
          await ws.remove();
        }
      },
    };
  } catch (err) {
    await env?.close().catch(() => {});
    await ws.remove();
    throw err;
  }
}
