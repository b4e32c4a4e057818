import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { createEnvironment } from "../environments/index.js";
import type { Environment } from "../environments/types.js";
import { sandboxRepoPath } from "../interactive/workspace.js";

/**
 * The environment for `patchloop run` on a host repository (or the worktree made of it). The
 * repository is the work folder everywhere: local uses it where it is, bwrap shows it at /testbed
 * (or `environment.cwd`) as a batch does, so the model never sees the host path; docker/podman
 * mount it at its own path (a config's container path belongs to an image's repository).
 */
export async function openTaskEnvironment(config: Config, repoDir: string): Promise<Environment> {
  const kind = config.environment.environment_class;
  try {
    return await createEnvironment(config.environment, {
      workFolder: repoDir,
      mountAt: kind === "bwrap" ? sandboxRepoPath(config.environment) : repoDir,
      warn: (msg) => process.stderr.write(`WARNING: ${msg}\n`),
      hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
    });
  } catch (err) {
    throw new ConfigError(`cannot start the ${kind} environment: ${(err as Error).message}`);
  }
}
