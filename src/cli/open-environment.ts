import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { createEnvironment } from "../environments/index.js";
import type { Environment } from "../environments/types.js";

/**
 * The environment for `patchloop run` on a host repository (or the worktree made of it). The
 * repository is the work folder everywhere and appears at its own path: local and bwrap use it
 * there, docker/podman mount it there (a config's container path such as /testbed does not apply
 * to a host repository).
 */
export async function openTaskEnvironment(config: Config, repoDir: string): Promise<Environment> {
  const kind = config.environment.environment_class;
  try {
    return await createEnvironment(config.environment, {
      workFolder: repoDir,
      mountAt: repoDir,
      warn: (msg) => process.stderr.write(`WARNING: ${msg}\n`),
      hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
    });
  } catch (err) {
    throw new ConfigError(`cannot start the ${kind} environment: ${(err as Error).message}`);
  }
}
