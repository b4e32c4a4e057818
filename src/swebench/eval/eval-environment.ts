import type { Environment } from "../../environments/types.js";
import { instanceImageName } from "../images.js";
import type { SwebenchInstance } from "../types.js";
import { CONDA_ACTIVATE } from "./eval-script.js";

/**
 * A fresh environment for grading one instance, and how eval.sh is to run in it.
 * The evaluation calls `cleanup` exactly once, whatever happened.
 */
export interface EvalEnvironment {
  env: Environment;
  /** Repository root inside the environment, at the instance's base commit. */
  repoDir: string;
  /** A writable folder inside the environment outside the repository (patch.diff, eval.sh). */
  scratchDir: string;
  /** eval.sh's activation lines (`CONDA_ACTIVATE` in SWE-bench images, none on the host). */
  activate: string[];
  /** Whether eval.sh adds the harness's `git config --global --add safe.directory` line. */
  safeDirectory: boolean;
  /** Whether eval.sh re-runs the spec's install command by default here. */
  installByDefault: boolean;
  /** Removes the environment (container, worktree, temp folders). */
  cleanup(): Promise<void>;
}

/** Makes the environment of one instance; rejects with a readable Error when it cannot. */
export type EnvironmentProvider = (instance: SwebenchInstance) => Promise<EvalEnvironment>;

/** Options of `containerProvider`. */
export interface ContainerProviderOptions {
  /** Starts a container of `image` (e.g. `createEnvironment` with docker/podman and that image). */
  open: (image: string, instance: SwebenchInstance) => Promise<Environment>;
  /** The image of an instance; default: the row's `image_name`, else `instanceImageName`. */
  imageFor?: (instance: SwebenchInstance) => string;
  /** Repository root in the image; default `/testbed`. */
  repoDir?: string;
  /** Activation lines; default `CONDA_ACTIVATE`. */
  activate?: string[];
}

/** Instances graded in their SWE-bench image (or any image laid out the same way). */
export function containerProvider(options: ContainerProviderOptions): EnvironmentProvider {
  return async (instance) => {
    const image =
      options.imageFor?.(instance) ?? instance.image_name ?? instanceImageName(instance.instance_id);
    const env = await options.open(image, instance);
    return {
      env,
      repoDir: options.repoDir ?? "/testbed",
      scratchDir: "/tmp",
      activate: options.activate ?? CONDA_ACTIVATE,
      safeDirectory: true,
      installByDefault: true,
      cleanup: () => env.close(),
    };
  };
}
