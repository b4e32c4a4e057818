import type { EnvironmentConfig } from "../config/schema.js";
import { createBwrapEnvironment, parseBind, SANDBOX_REPO, type SandboxBind } from "./bwrap.js";
import { createContainerEnvironment } from "./container.js";
import { createLocalEnvironment } from "./local.js";
import { bwrapProblem } from "./preflight.js";
import type { Environment } from "./types.js";
import type { WarnFn } from "./warn.js";

export {
  type BwrapEnvironmentOptions,
  createBwrapEnvironment,
  parseBind,
  SANDBOX_REPO,
  type SandboxBind,
} from "./bwrap.js";
export { type ContainerEnvironmentOptions, createContainerEnvironment } from "./container.js";
export { type GcOptions, type GcReport, gcContainers } from "./gc.js";
export { createLocalEnvironment, type LocalEnvironmentOptions } from "./local.js";
export type { Environment, ExecOptions, ExecResult, InteractiveProcess } from "./types.js";
export type { WarnFn } from "./warn.js";

/** What a caller knows beyond the config. */
export interface CreateEnvironmentOptions {
  /** Host folder of the repository (local: the working dir; bwrap: bound read-write; containers: mounted). */
  repoDir?: string;
  /** Run id for container labels (`patchloop.run`). */
  runId?: string;
  /** Receives warnings meant for the user (local: nothing is isolated). */
  warn?: WarnFn;
  /** local: host variables kept from commands (e.g. the model's API key variable). */
  hideEnv?: string[];
  /** bwrap: host paths the sandbox must show besides the config's (e.g. the work tree's history, read-only). */
  binds?: SandboxBind[];
}

/** The variables of every command: `forward_env` from the host, then `env` (which wins). */
export function configEnv(config: EnvironmentConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of config.forward_env) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return Object.assign(env, config.env);
}

function need(value: string | undefined, what: string, config: EnvironmentConfig): string {
  if (value) return value;
  throw new Error(
    `environment ${config.environment_class} needs ${what}; got none. ` +
      `Pass --repo DIR, or set environment.cwd in the config.`,
  );
}

/**
 * Creates the environment the config names (`environment_class`): local, bwrap, docker or podman.
 * Rejects with a readable Error when a setting is missing or wrong (no image for a container,
 * a bwrap network other than none/host) or the engine cannot start.
 */
export async function createEnvironment(
  config: EnvironmentConfig,
  options: CreateEnvironmentOptions = {},
): Promise<Environment> {
  const env = configEnv(config);
  switch (config.environment_class) {
    case "local":
      return createLocalEnvironment({
        cwd: need(config.cwd || options.repoDir, "a working directory", config),
        env,
        timeout: config.timeout,
        captureLimit: config.capture_limit,
        warn: options.warn,
        hideEnv: options.hideEnv,
        pidsLimit: config.pids_limit,
        memory: config.memory,
      });
    case "bwrap": {
      if (config.network !== "none" && config.network !== "host") {
        throw new Error(
          `environment.network for bwrap must be "none" or "host", got ${JSON.stringify(config.network)}`,
        );
      }
      const repoDir = need(options.repoDir, "a repository folder (--repo DIR)", config);
      const binds = config.binds.map((spec) => {
        const b = parseBind(spec);
        if (typeof b === "string") throw new Error(b);
        return b;
      });
      const problem = await bwrapProblem();
      if (problem) throw new Error(problem);
      // The repository appears at environment.cwd when the config names one, else at /testbed.
      const mountAt = config.cwd || SANDBOX_REPO;
      return createBwrapEnvironment({
        repoDir,
        mountAt,
        cwd: mountAt,
        env,
        timeout: config.timeout,
        captureLimit: config.capture_limit,
        network: config.network,
        binds: [...(options.binds ?? []), ...binds],
        pidsLimit: config.pids_limit,
        memory: config.memory,
      });
    }
    case "docker":
    case "podman": {
      if (!config.image) {
        throw new Error(
          `environment ${config.environment_class} needs an image (environment.image or --image); got none`,
        );
      }
      return createContainerEnvironment({
        executable: config.executable ?? config.environment_class,
        kind: config.environment_class,
        image: config.image,
        repoDir: options.repoDir,
        cwd: config.cwd || undefined,
        env: config.env,
        forwardEnv: config.forward_env,
        timeout: config.timeout,
        captureLimit: config.capture_limit,
        containerTimeout: config.container_timeout,
        pullTimeout: config.pull_timeout,
        platform: config.platform ?? undefined,
        memory: config.memory,
        cpus: config.cpus,
        pidsLimit: config.pids_limit,
        network: config.network || undefined,
        runArgs: config.run_args,
        runId: options.runId,
      });
    }
    default: {
      const never: never = config.environment_class;
      throw new Error(`unknown environment_class ${JSON.stringify(never)}`);
    }
  }
}
