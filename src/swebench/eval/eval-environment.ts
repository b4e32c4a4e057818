import type { Environment } from "../../environments/types.js";
import { imageForRow } from "../images.js";
import type { SwebenchInstance } from "../types.js";
import { CONDA_ACTIVATE } from "./eval-script.js";

/**
 * A fresh environment for grading one instance, and how eval.sh is to run in it.
 * The evaluation calls `cleanup` exactly once, whatever happened.
 */
export interface EvalEnvironment {
  env: Environment;
  /** `local`, `bwrap`, `docker`, `podman` (recorded in report.json). */
  kind: string;
  /** The image it runs (containers). */
  image?: string;
  /** The `--platform` it runs under, when one was asked for. */
  platform?: string;
  /**
   * True where the tests run on the host's own Python (local, bwrap): eval.sh then declares the
   * interpreter and PYTHONPATH (python-env.ts) instead of activating an image's conda env.
   */
  hostPython: boolean;
  /** Repository root inside the environment, at the instance's base commit. */
  repoDir: string;
  /** The same folder on the host, where the environment shows a host folder (local: the same; bwrap: mounted at /testbed). */
  hostRepoDir?: string;
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
  /** The image of an instance; default: `imageForRow` (the row's image, else the harness's name). */
  imageFor?: (instance: SwebenchInstance) => string;
  /** `docker` or `podman`. */
  kind?: string;
  /** The platform the containers run under (recorded; `open` passes it to the engine). */
  platform?: string;
  /** Repository root in the image; default `/testbed`. */
  repoDir?: string;
  /** Activation lines; default `CONDA_ACTIVATE`. */
  activate?: string[];
}

/** Instances graded in their SWE-bench image (or any image laid out the same way). */
export function containerProvider(options: ContainerProviderOptions): EnvironmentProvider {
  return async (instance) => {
    const image = options.imageFor?.(instance) ?? imageForRow(instance);
    const env = await options.open(image, instance);
    return {
      env,
      kind: options.kind ?? "docker",
      image,
      platform: options.platform,
      hostPython: false,
      repoDir: options.repoDir ?? "/testbed",
      scratchDir: "/tmp",
      activate: options.activate ?? CONDA_ACTIVATE,
      safeDirectory: true,
      installByDefault: true,
      cleanup: () => env.close(),
    };
  };
}
