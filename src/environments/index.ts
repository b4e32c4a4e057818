import { resolve } from "node:path";
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

/** What a caller knows beyond the config: above all, where the task's files are. */
export interface CreateEnvironmentOptions {
  /**
   * The task's files on this machine (a repository or work tree). local: where commands run (needed);
   * bwrap: shown read-write at `mountAt` (needed); docker/podman: mounted read-write at `mountAt`
   * (without one, the container works on its image's own files).
   */
  workFolder?: string;
  /**
   * Where the task's files are inside the environment, and where commands start. Default: the
   * config's `environment.cwd`, else for bwrap /testbed, for containers the work folder's own path,
   * else the image's working directory. local runs in the work folder itself: any other path is refused.
   */
  mountAt?: string;
  /** docker/podman: the image to start; default `environment.image`. */
  image?: string;
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

/**
 * Where the config says the repository is inside the environment (`environment.cwd`), or
 * undefined when it says nothing: the one reader of that key.
 */
export function configuredRepoPath(config: EnvironmentConfig): string | undefined {
  return config.cwd || undefined;
}

/**
 * Creates the environment the config names (`environment_class`): local, bwrap, docker or podman,
 * on the work folder and at the mount point the options give. Rejects with a readable Error when
 * a setting is missing or wrong (no work folder where one is needed, no image for a container, a
 * bwrap network other than none/host) or the engine cannot start.
 */
export async function createEnvironment(
  config: EnvironmentConfig,
  options: CreateEnvironmentOptions = {},
): Promise<Environment> {
  const kind = config.environment_class;
  const workFolder = options.workFolder ? resolve(options.workFolder) : undefined;
  const mountAt = options.mountAt ?? configuredRepoPath(config);
  switch (kind) {
    case "local": {
      const cwd = needFolder(workFolder, config);
      if (options.mountAt !== undefined && resolve(options.mountAt) !== cwd)
        throw new Error(
          `environment local runs in the work folder itself (${cwd}); it cannot show it at ${options.mountAt}`,
        );
      return createLocalEnvironment({
        cwd,
        env: configEnv(config),
        timeout: config.timeout,
        captureLimit: config.capture_limit,
        warn: options.warn,
        hideEnv: options.hideEnv,
        pidsLimit: config.pids_limit,
        memory: config.memory,
      });
    }
    case "bwrap": {
      if (config.network !== "none" && config.network !== "host") {
        throw new Error(
          `environment.network for bwrap must be "none" or "host", got ${JSON.stringify(config.network)}`,
        );
      }
      const repoDir = needFolder(workFolder, config);
      const binds = config.binds.map((spec) => {
        const b = parseBind(spec);
        if (typeof b === "string") throw new Error(b);
        return b;
      });
      const problem = await bwrapProblem();
      if (problem) throw new Error(problem);
      return createBwrapEnvironment({
        repoDir,
        mountAt: mountAt ?? SANDBOX_REPO,
        env: configEnv(config),
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
      const image = options.image ?? config.image;
      if (!image)
        throw new Error(`environment ${kind} needs an image (environment.image or --image); got none`);
      return createContainerEnvironment({
        executable: config.executable ?? kind,
        kind,
        image,
        repoDir: workFolder,
        mountAt,
        cwd: mountAt,
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
      const never: never = kind;
      throw new Error(`unknown environment_class ${JSON.stringify(never)}`);
    }
  }
}

function needFolder(workFolder: string | undefined, config: EnvironmentConfig): string {
  if (workFolder) return workFolder;
  throw new Error(
    `environment ${config.environment_class} needs a work folder (the task's files on this machine); got none. ` +
      "Pass --repo DIR (patchloop run) or --repos-dir DIR (swebench, eval, localize).",
  );
}
