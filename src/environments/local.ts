import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { endProcesses } from "../util/process-set.js";
import { type Cgroup, createCgroup, parseMemory } from "./cgroup.js";
import { execCore, SpawnedGroups, TASK_DEFAULT_ENV } from "./exec-core.js";
import { runCaptured, spawnInteractive } from "./host-process.js";
import { Launcher } from "./launcher.js";
import { readHostFile, requireAbsolute } from "./paths.js";
import { processesWithVariable } from "./proc-tree.js";
import type { Environment } from "./types.js";
import { type WarnFn, warnOnce } from "./warn.js";

/** Options of {@link createLocalEnvironment}. */
export interface LocalEnvironmentOptions {
  /** The task's directory on the host. */
  cwd: string;
  /** Variables added to every command (on top of the host's environment and {@link TASK_DEFAULT_ENV}). */
  env?: Record<string, string>;
  /** Default per-command timeout in seconds. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit?: number;
  /**
   * Receives the warning that nothing is isolated, once per callback (a CLI passing the same
   * function for every task sees it once). Without it the library stays quiet.
   */
  warn?: WarnFn;
  /** Host variables not passed to commands (API keys), on top of {@link HIDDEN_HOST_ENV}. */
  hideEnv?: string[];
  /** Most processes at once (a cgroup's pids.max, where this machine allows one); null: no limit. */
  pidsLimit?: number | null;
  /** Most memory, e.g. `8g` (a cgroup's limit, where this machine allows one); null: no limit. */
  memory?: string | null;
}

/** The variable every command of a local environment carries, so that its escaped processes can be found. */
export const ENVIRONMENT_ID_VAR = "PATCHLOOP_ENVIRONMENT_ID";

/**
 * Host variables never passed to commands: the keys patchloop itself uses (the model API keys, the
 * Hugging Face token of dataset downloads). bwrap passes only an allowlist, so none of these either.
 */
export const HIDDEN_HOST_ENV = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"];

/** The text handed to `warn` by the local environment. */
export const LOCAL_NOT_ISOLATED_WARNING =
  "environment 'local': commands run directly on this machine with your user's rights. Nothing is " +
  "isolated: the agent can read, change or delete any file you can and reach any network you can, and " +
  "a process it starts can outlive the task (local ends those in its control group or carrying its " +
  "environment id; not one run as root that leaves the group and clears its environment, nor one that " +
  "clears it where no group can be made). Use environment_class bwrap, docker or podman to contain it.";

/**
 * Runs commands directly on the host, each in its own process group (a timeout kills the whole
 * group and keeps partial output). Nothing is isolated: the agent can touch anything you can.
 *
 * Where this machine allows (cgroup.ts), the environment's processes run in a control group that
 * enforces `pidsLimit` and `memory` and lists every one of them; otherwise a warning says the limits
 * do not hold. Either way `close` ends the processes the commands started, also those that left
 * the process group or the session (`setsid`, double forks): the group's members, and every
 * process carrying this environment's {@link ENVIRONMENT_ID_VAR}. What it cannot end (said in the
 * warning and docs/sandbox.md): a root process that writes itself into another group and clears its
 * environment, or, with no group, one that clears its environment; nothing marks those once they
 * are reparented, and root can undo any mark, so only a pid namespace (bwrap) or a container holds.
 */
export function createLocalEnvironment(options: LocalEnvironmentOptions): Environment {
  warnOnce(options.warn, LOCAL_NOT_ISOLATED_WARNING);
  const baseEnv: Record<string, string> = {};
  const hidden = new Set([...HIDDEN_HOST_ENV, ...(options.hideEnv ?? [])]);
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !hidden.has(k)) baseEnv[k] = v;
  Object.assign(baseEnv, TASK_DEFAULT_ENV, options.env);
  const envId = randomBytes(8).toString("hex");
  baseEnv[ENVIRONMENT_ID_VAR] = envId;
  const cgroup = localCgroup(options);
  const spawned = new SpawnedGroups();
  // Every process this environment starts joins its cgroup from here, right after the spawn: a
  // wrapper shell in front of it would change the signal dispositions its commands start with.
  // (The moment between spawn and move is not a hole: the environment id finds what forks in it.)
  const track = (child: ChildProcess, running: boolean) => {
    spawned.track(child, running);
    if (!running || !child.pid) return;
    try {
      cgroup?.add(child.pid);
    } catch {
      // the process is already gone
    }
  };

  // The helper joins the cgroup before its first request (it forks nothing until then).
  const launcher = new Launcher(baseEnv, undefined, cgroup ? (pid) => cgroup.add(pid) : undefined);
  let closed = false;

  /** Kills the helper and every process of this environment: the cgroup's members, and those carrying its id. */
  async function endAll(): Promise<void> {
    launcher.reset();
    await cgroup?.killAll();
    await endProcesses({
      find: () => processesWithVariable(ENVIRONMENT_ID_VAR, envId).filter((p) => p !== process.pid),
      pauseMs: 20,
      rounds: 5,
    });
  }

  return {
    kind: "local",
    cwd: options.cwd,
    exec: execCore({
      name: "local",
      cwd: options.cwd,
      timeout: options.timeout,
      captureLimit: options.captureLimit ?? 10_000_000,
      launcher,
      isClosed: () => closed,
      // absolute: the helper does not run in this process's folder
      folder: (cwd) => resolve(cwd),
      direct: (command, run) =>
        runCaptured(["bash", "-c", command], {
          ...run,
          env: { ...baseEnv, ...run.env },
          track,
        }),
      endAll,
    }),
    spawn(argv, opts = {}) {
      return spawnInteractive(argv.length > 0 ? argv : ["bash"], {
        cwd: opts.cwd ?? options.cwd,
        env: { ...baseEnv, ...opts.env },
        track,
      });
    },
    async readFile(path, opts) {
      requireAbsolute(path);
      return readHostFile(path, path, opts?.maxBytes);
    },
    async writeFile(path, data) {
      requireAbsolute(path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
    },
    async close() {
      if (closed) return;
      closed = true;
      launcher.close();
      spawned.killAll();
      await endAll();
      await cgroup?.remove();
    },
  };
}

/**
 * The control group of a local environment, where this machine allows one (it enforces the
 * limits and lists every process); else undefined, with a warning when limits were asked for.
 */
function localCgroup(options: LocalEnvironmentOptions): Cgroup | undefined {
  const limits = {
    pidsLimit: options.pidsLimit ?? null,
    memoryBytes: options.memory ? parseMemory(options.memory) : null,
  };
  const made = createCgroup("local", limits);
  if (typeof made !== "string") return made;
  if (limits.pidsLimit !== null || limits.memoryBytes !== null) {
    warnOnce(
      options.warn,
      `environment 'local': pids_limit and memory are not enforced on this machine (${made}); a fork bomb or a ` +
        "runaway test reaches the whole machine. Use bwrap, docker or podman to contain it.",
    );
  }
  return undefined;
}
