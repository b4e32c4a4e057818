import type { Config, EnvironmentConfig } from "../../config/schema.js";
import { createEnvironment } from "../../environments/index.js";
import { instanceImageName } from "../images.js";
import type { SwebenchInstance } from "../types.js";
import type { InstanceEnvironment } from "./types.js";
import { createWorkspace } from "./workspace.js";

/** Repository root inside SWE-bench instance images. */
export const TESTBED = "/testbed";

/** What `openInstanceEnvironment` needs beyond the config. */
export interface OpenInstanceOptions {
  /** Folder of `owner__repo` clones; required for local and bwrap. */
  reposDir?: string;
  /** Where work trees are made (local, bwrap); see workspace-root.ts. */
  workRoot: string;
  /** Label of the containers (`patchloop.run`). */
  runId?: string;
  warn?: (message: string) => void;
}

/**
 * The image of an instance: `environment.image` when the config sets one (the same image for
 * every instance), else the row's `image_name`, else the SWE-bench instance image.
 */
export function imageFor(config: EnvironmentConfig, row: SwebenchInstance): string {
  return config.image || row.image_name || instanceImageName(row.instance_id);
}

/**
 * Opens the environment of one instance:
 * - docker / podman: a container of the instance image, working in `environment.cwd` (default /testbed);
 * - local / bwrap: a fresh checkout of `reposDir/owner__repo` at the base commit (see workspace.ts),
 *   which `cleanup` deletes after closing the environment.
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
  // bwrap gives the sandbox a private /tmp: a clone there cannot lend its objects.
  const hiddenPrefixes = e.environment_class === "bwrap" ? ["/tmp"] : [];
  const ws = await createWorkspace(options.reposDir, row, options.workRoot, { hiddenPrefixes });
  try {
    // The work tree is the task's folder: a cwd such as /testbed from a container config does not apply.
    const env = await createEnvironment(
      { ...e, cwd: "" },
      {
        repoDir: ws.dir,
        runId: options.runId,
        warn: options.warn,
        hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
      },
    );
    return {
      env,
      cleanup: async () => {
        try {
          await env.close();
        } finally {
          await ws.remove();
        }
      },
    };
  } catch (err) {
    await ws.remove();
    throw err;
  }
}
