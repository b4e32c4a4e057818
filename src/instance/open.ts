import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { EnvironmentConfig } from "../config/schema.js";
import { imageForRow } from "../dataset/images.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { configuredRepoPath, createEnvironment } from "../environments/index.js";
import type { Environment } from "../environments/types.js";
import { shellQuote } from "../util/shell-quote.js";
import {
  CONDA_ACTIVATE,
  type GradeInstance,
  type Instance,
  type InstanceUse,
  type OpenInstanceOptions,
  type ReadInstance,
} from "./types.js";
import { type GitRunner, type PreparedWorkspace, prepareWorkspace } from "./workspace.js";

/** Repository root inside SWE-bench instance images, and where bwrap shows a checkout by default. */
const TESTBED = "/testbed";

/** Where local batches put their work trees: `<tmp>/patchloop/<instance id>`. */
const STABLE_ROOT = () => join(tmpdir(), "patchloop");

/** Bytes of test output kept per instance when grading: the harness keeps all of it; a cut log could lose a marker. */
const EVAL_CAPTURE_LIMIT = 100_000_000;

/** The folder name of an instance (work trees, temp folders). */
const folderName = (instanceId: string) => instanceId.replace(/[^\w.-]/g, "_");

/**
 * Where an agent finds an instance's repository (what `{{ cwd }}` renders): in containers and
 * bwrap the config's `environment.cwd`, else /testbed; locally the stable work tree path.
 */
export function instanceCwd(config: EnvironmentConfig, instanceId: string): string {
  if (config.environment_class === "local") return join(STABLE_ROOT(), folderName(instanceId));
  return configuredRepoPath(config) ?? TESTBED;
}

/**
 * Opens the environment of one SWE-bench row, for one use (the one way batch, eval and localize
 * open an instance):
 * - docker / podman: a container of the instance image (`imageForRow`), the repository at
 *   `environment.cwd` or /testbed (grading: always /testbed, as the harness's eval script expects);
 * - local / bwrap: a fresh checkout of `reposDir/owner__repo` at the base commit with no later
 *   history (instance/workspace.ts): locally used in place (agent: at the stable path
 *   `<tmp>/patchloop/<id>`), in bwrap shown at `environment.cwd` or /testbed (grading: /testbed)
 *   with its history store read-only at its own path, so that git works inside;
 * - read with `reposDir`: that checkout alone, read on this machine, whatever the environment.
 * `close` removes all of it. Rejects with a readable Error when the clone, the commit, the image
 * or the engine is missing.
 */
export function openInstance(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: "agent",
  options?: OpenInstanceOptions,
): Promise<Instance>;
export function openInstance(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: "grade",
  options?: OpenInstanceOptions,
): Promise<GradeInstance>;
export function openInstance(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: "read",
  options?: OpenInstanceOptions,
): Promise<ReadInstance>;
export async function openInstance(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: InstanceUse,
  options: OpenInstanceOptions = {},
): Promise<Instance | GradeInstance | ReadInstance> {
  if (use === "read" && options.reposDir) return readCheckout(options.reposDir, row, options);
  const kind = config.environment_class;
  if (kind === "docker" || kind === "podman")
    return openContainer(settingsFor(config, use, options), row, use, options);
  if (!options.reposDir) {
    throw new Error(
      `environment ${kind} needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo`,
    );
  }
  return openCheckout(settingsFor(config, use, options), row, use, {
    ...options,
    reposDir: options.reposDir,
  });
}

/**
 * The environment section a use runs with: grading keeps the whole test log and lets a container
 * outlive the tests; on this machine itself it runs without the per-command time limit and the
 * process and memory limits (each of its commands has its own limit).
 */
function settingsFor(config: EnvironmentConfig, use: InstanceUse, o: OpenInstanceOptions): EnvironmentConfig {
  if (use !== "grade") return config;
  const graded = {
    ...config,
    capture_limit: Math.max(config.capture_limit, EVAL_CAPTURE_LIMIT),
    container_timeout: Math.max(config.container_timeout, (o.testTimeout ?? 0) + 900),
  };
  return config.environment_class === "local"
    ? { ...graded, timeout: 0, pids_limit: null, memory: null }
    : graded;
}

/** Where the repository is inside for this use (containers and bwrap). */
function repoInside(config: EnvironmentConfig, use: InstanceUse): string {
  return use === "grade" ? TESTBED : (configuredRepoPath(config) ?? TESTBED);
}

async function openContainer(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: InstanceUse,
  o: OpenInstanceOptions,
): Promise<Instance | GradeInstance> {
  const image = imageForRow(row, config);
  // An image that keeps the repository elsewhere (SWE-bench Pro: /app) says so in its row.
  const repoDir = row.workdir ?? repoInside(config, use);
  const env = await createEnvironment(config, { image, mountAt: repoDir, runId: o.runId, warn: o.warn });
  const opened: Instance = { env, repoDir, close: () => env.close() };
  if (use !== "grade") return opened;
  return {
    ...opened,
    kind: config.environment_class,
    image,
    platform: config.platform ?? undefined,
    hostPython: false,
    scratchDir: "/tmp",
    activate: CONDA_ACTIVATE,
    safeDirectory: true,
    installByDefault: true,
  };
}

/** A checkout made for one use, and what goes with it. */
interface Checkout {
  ws: PreparedWorkspace;
  /** grade: a host folder beside the work tree for eval.sh and the patch. */
  scratch?: string;
  /** Removes the checkout and its folders. */
  remove(): Promise<void>;
}

async function openCheckout(
  config: EnvironmentConfig,
  row: SwebenchInstance,
  use: InstanceUse,
  o: OpenInstanceOptions & { reposDir: string },
): Promise<Instance | GradeInstance> {
  const kind = config.environment_class;
  const made = await checkoutFor(kind === "local" && use === "agent", row, use, o);
  const { ws } = made;
  let env: Environment | undefined;
  try {
    env = await createEnvironment(config, {
      workFolder: ws.dir,
      mountAt: kind === "bwrap" ? repoInside(config, use) : undefined,
      binds: ws.objectDirs.map((d) => ({ source: d, target: d, writable: false })),
      runId: o.runId,
      warn: o.warn,
      hideEnv: o.hideEnv,
    });
    // Locally the checkout goes through the environment, whose helper shell starts it more cheaply
    // than a spawn from this process (see environments/launcher.ts).
    await ws.checkout(kind === "local" ? gitIn(env) : undefined);
  } catch (err) {
    await env?.close().catch(() => {});
    await made.remove();
    throw err;
  }
  const opened = env;
  const close = async () => {
    try {
      await opened.close();
    } finally {
      await made.remove();
    }
  };
  const instance: Instance = { env, repoDir: env.cwd, hostDir: ws.dir, baseCommit: row.base_commit, close };
  if (use !== "grade") return instance;
  return {
    ...instance,
    kind,
    hostPython: true,
    // bwrap: the sandbox's private /tmp; locally the folder beside the work tree
    scratchDir: kind === "bwrap" ? "/tmp" : (made.scratch as string),
    activate: [],
    safeDirectory: false,
    installByDefault: false,
  };
}

/**
 * Makes the checkout of a use, not checked out yet: an agent's local one at its stable path, an
 * agent's bwrap one under `workRoot`, a grading one in a folder of its own with a scratch folder
 * beside the work tree.
 */
async function checkoutFor(
  stable: boolean,
  row: SwebenchInstance,
  use: InstanceUse,
  o: OpenInstanceOptions & { reposDir: string },
): Promise<Checkout> {
  if (stable) {
    const ws = await prepareWorkspace(o.reposDir, row, o.stableRoot ?? STABLE_ROOT(), { stable: true });
    return { ws, remove: ws.remove };
  }
  if (use !== "grade") {
    const ws = await prepareWorkspace(o.reposDir, row, o.workRoot || tmpdir());
    return { ws, remove: ws.remove };
  }
  if (o.workRoot) await mkdir(o.workRoot, { recursive: true });
  const base = await mkdtemp(
    join(o.workRoot ? resolve(o.workRoot) : tmpdir(), `patchloop-eval-${folderName(row.instance_id)}-`),
  );
  const removeBase = () => rm(base, { recursive: true, force: true });
  try {
    const ws = await prepareWorkspace(o.reposDir, row, base);
    const scratch = join(dirname(ws.dir), "scratch");
    await mkdir(scratch);
    const remove = async () => {
      await ws.remove();
      await removeBase();
    };
    return { ws, scratch, remove };
  } catch (err) {
    await removeBase();
    throw err;
  }
}

/** `read` from a checkout: made and checked out here, read on this machine; no environment. */
async function readCheckout(
  reposDir: string,
  row: SwebenchInstance,
  o: OpenInstanceOptions,
): Promise<ReadInstance> {
  const ws = await prepareWorkspace(reposDir, row, o.workRoot || tmpdir());
  try {
    await ws.checkout();
  } catch (err) {
    await ws.remove();
    throw err;
  }
  return { repoDir: ws.dir, hostDir: ws.dir, baseCommit: row.base_commit, close: ws.remove };
}

/** Runs git through `env` (output: stdout and stderr together, used in error messages only). */
function gitIn(env: Environment): GitRunner {
  return async (dir, args) => {
    const r = await env.exec(["git", ...args].map(shellQuote).join(" "), { cwd: dir, timeout: 600 });
    if (r.returncode !== 0) throw new Error(`git ${args.join(" ")} (in ${dir}) failed: ${r.output.trim()}`);
    return r.output;
  };
}
