import type { Environment } from "../environments/types.js";
import type { WarnFn } from "../environments/warn.js";

/**
 * What an instance's environment is opened for: `agent` (a batch runs the model in it), `grade`
 * (eval runs the tests in it), `read` (localize reads its files).
 */
export type InstanceUse = "agent" | "grade" | "read";

/** What opening an instance needs beyond the config's environment section and the row. */
export interface OpenInstanceOptions {
  /** Folder of `owner__repo` clones: needed for local and bwrap, and for `read` from a checkout. */
  reposDir?: string;
  /** Where checkouts are made (agent on bwrap, grade, read); default the system temp folder. */
  workRoot?: string;
  /** agent on local: the folder of the stable work trees (default `<tmp>/patchloop`). */
  stableRoot?: string;
  /** Label of the containers (`patchloop.run`). */
  runId?: string;
  /** Receives warnings meant for the person (local: nothing is isolated). */
  warn?: WarnFn;
  /** local: host variables kept from commands (the model's API key variable). */
  hideEnv?: string[];
  /** grade: seconds the tests may run; a container lives at least 15 minutes longer. */
  testTimeout?: number;
}

/** An instance opened: its environment, where its repository is, and how to let it all go. */
export interface Instance {
  env: Environment;
  /** The repository root inside the environment (what commands see). */
  repoDir: string;
  /** The same folder on this machine, where there is one (a checkout of `reposDir`). */
  hostDir?: string;
  /** The commit a checkout is at; absent for a container, whose image holds its own. */
  baseCommit?: string;
  /** Closes the environment and removes the checkout and temp folders. */
  close(): Promise<void>;
}

/** What grading needs to know besides the environment: how eval.sh is to run in it. */
export interface GradeFacts {
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
  /** A writable folder inside the environment outside the repository (patch.diff, eval.sh). */
  scratchDir: string;
  /** eval.sh's activation lines (`CONDA_ACTIVATE` in SWE-bench images, none on the host). */
  activate: string[];
  /** Whether eval.sh adds the harness's `git config --global --add safe.directory` line. */
  safeDirectory: boolean;
  /** Whether eval.sh re-runs the spec's install command by default here. */
  installByDefault: boolean;
}

/** An instance opened for grading. */
export type GradeInstance = Instance & GradeFacts;

/**
 * An instance opened for reading: with `reposDir`, a checkout read on this machine (`hostDir`;
 * nothing runs, so there is no environment); else the environment's own files.
 */
export type ReadInstance = Omit<Instance, "env"> & { env?: Environment };

/** The conda activation an SWE-bench image needs (env `testbed` under /opt/miniconda3). */
export const CONDA_ACTIVATE = ["source /opt/miniconda3/bin/activate", "conda activate testbed"];
