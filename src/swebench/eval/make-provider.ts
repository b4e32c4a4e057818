import type { EnvironmentConfig } from "../../config/schema.js";
import { configEnv, createEnvironment } from "../../environments/index.js";
import { imageForRow } from "../images.js";
import { containerProvider, type EnvironmentProvider } from "./eval-environment.js";
import { worktreeProvider } from "./worktree.js";

/** Options of `makeEvalProvider`. */
export interface EvalProviderOptions {
  kind: string;
  /** The config's environment section (env, forward_env, executable, memory, ...). */
  environment: EnvironmentConfig;
  reposDir?: string;
  runId: string;
  /** The per-instance test timeout: a container must outlive it. */
  timeout: number;
}

/** Bytes of test output kept per instance: the harness keeps all of it; a cut log could lose a marker. */
export const EVAL_CAPTURE_LIMIT = 100_000_000;

/**
 * The environment provider of `patchloop eval --environment KIND`: SWE-bench instance images on
 * docker/podman (through `createEnvironment`), or fresh worktrees of `reposDir` run on the host
 * (local) or in a bubblewrap sandbox (bwrap) with the config's variables (e.g. a venv on PATH).
 */
export function makeEvalProvider(o: EvalProviderOptions): EnvironmentProvider {
  const base = { ...o.environment, capture_limit: Math.max(o.environment.capture_limit, EVAL_CAPTURE_LIMIT) };
  if (o.kind === "local" || o.kind === "bwrap") {
    if (!o.reposDir) throw new Error(`--environment ${o.kind} needs --repos-dir`);
    if (o.kind === "local") {
      return worktreeProvider({
        reposDir: o.reposDir,
        env: configEnv(base),
        captureLimit: base.capture_limit,
      });
    }
    return worktreeProvider({
      reposDir: o.reposDir,
      kind: "bwrap",
      // The sandbox shows the work tree at /testbed (its cwd), as the instance images do, and its
      // history store read-only at its own path so that git works inside.
      open: async (worktree, _scratch, objectDirs) => {
        const env = await createEnvironment(
          { ...base, environment_class: "bwrap", cwd: "" },
          {
            repoDir: worktree,
            runId: o.runId,
            binds: objectDirs.map((d) => ({ source: d, target: d, writable: false })),
          },
        );
        return { env, scratchDir: "/tmp", repoDir: env.cwd };
      },
    });
  }
  const kind = o.kind === "podman" ? "podman" : "docker";
  return containerProvider({
    kind,
    platform: o.environment.platform ?? undefined,
    imageFor: (row) => imageForRow(row, o.environment),
    open: (image) =>
      createEnvironment(
        {
          ...base,
          environment_class: kind,
          image,
          cwd: "/testbed",
          container_timeout: Math.max(base.container_timeout, o.timeout + 900),
        },
        { runId: o.runId },
      ),
  });
}
