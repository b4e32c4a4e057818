import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { createEnvironment } from "../environments/index.js";
import type { Environment } from "../environments/types.js";

/**
 * The environment for `patchloop run` on a host repository. The repository is the working
 * directory everywhere: local and bwrap use it in place; docker/podman mount it at the same path
 * (a config's container cwd such as /testbed does not apply to a host repository).
 */
export async function openTaskEnvironment(config: Config, repoDir: string): Promise<Environment> {
  const e = { ...config.environment, cwd: repoDir };
  try {
    return await createEnvironment(e, {
      repoDir,
      warn: (msg) => process.stderr.write(`WARNING: ${msg}\n`),
      hideEnv: config.model.api_key_env ? [config.model.api_key_env] : [],
    });
  } catch (err) {
    throw new ConfigError(`cannot start the ${e.environment_class} environment: ${(err as Error).message}`);
  }
}
