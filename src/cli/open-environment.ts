import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { createLocalEnvironment } from "../environments/local.js";
import type { Environment } from "../environments/types.js";

/** The environment for a task on a host repository directory. */
export async function openTaskEnvironment(config: Config, repoDir: string): Promise<Environment> {
  const e = config.environment;
  if (e.environment_class !== "local")
    throw new ConfigError(`environment ${e.environment_class} is not available in this build yet`);
  const forwarded = Object.fromEntries(
    e.forward_env.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k] as string]),
  );
  return createLocalEnvironment({
    cwd: e.cwd || repoDir,
    env: { ...forwarded, ...e.env },
    timeout: e.timeout,
    captureLimit: e.capture_limit,
  });
}
