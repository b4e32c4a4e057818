import type { EnvironmentConfig } from "../config/schema.js";
import { openInstance } from "../instance/open.js";
import type { EnvironmentProvider } from "./eval-environment.js";

/** Options of `makeEvalProvider`. */
export interface EvalProviderOptions {
  /** `local`, `bwrap`, `docker` or `podman` (anything else: docker). */
  kind: string;
  /** The config's environment section (env, forward_env, executable, memory, ...). */
  environment: EnvironmentConfig;
  reposDir?: string;
  runId: string;
  /** The per-instance test timeout: a container must outlive it. */
  timeout: number;
}

/**
 * The environment provider of `patchloop eval --environment KIND`: each instance opened for
 * grading (`openInstance`): its SWE-bench image on docker/podman, or a fresh checkout of
 * `reposDir` on the host (local) or in a bubblewrap sandbox (bwrap) with the config's variables
 * (e.g. a venv on PATH).
 */
export function makeEvalProvider(o: EvalProviderOptions): EnvironmentProvider {
  if ((o.kind === "local" || o.kind === "bwrap") && !o.reposDir)
    throw new Error(`--environment ${o.kind} needs --repos-dir`);
  const kind = o.kind === "local" || o.kind === "bwrap" || o.kind === "podman" ? o.kind : "docker";
  const environment = { ...o.environment, environment_class: kind } as const;
  return (row) =>
    openInstance(environment, row, "grade", { reposDir: o.reposDir, runId: o.runId, testTimeout: o.timeout });
}
