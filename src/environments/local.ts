import type { ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { killGroup, runCaptured, spawnInteractive } from "./host-process.js";
import { Launcher } from "./launcher.js";
import { readHostFile, requireAbsolute } from "./paths.js";
import type { Environment, ExecOptions, ExecResult, InteractiveProcess } from "./types.js";
import { type WarnFn, warnOnce } from "./warn.js";

/** Options of {@link createLocalEnvironment}. */
export interface LocalEnvironmentOptions {
  /** The task's directory on the host. */
  cwd: string;
  /** Variables added to every command (on top of the host's environment). */
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
}

/**
 * Host variables never passed to commands: the keys patchloop itself uses (the model API keys, the
 * Hugging Face token of dataset downloads). bwrap passes only an allowlist, so none of these either.
 */
export const HIDDEN_HOST_ENV = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"];

/** The text handed to `warn` by the local environment. */
export const LOCAL_NOT_ISOLATED_WARNING =
  "environment 'local': commands run directly on this machine with your user's rights. Nothing is " +
  "isolated: the agent can read, change or delete any file you can and reach any network you can. " +
  "Use environment_class bwrap, docker or podman to contain it.";

/**
 * Runs commands directly on the host, each in its own process group (a timeout kills the whole
 * group and keeps partial output). Nothing is isolated: the agent can touch anything you can.
 */
export function createLocalEnvironment(options: LocalEnvironmentOptions): Environment {
  warnOnce(options.warn, LOCAL_NOT_ISOLATED_WARNING);
  const baseEnv: Record<string, string> = {};
  const hidden = new Set([...HIDDEN_HOST_ENV, ...(options.hideEnv ?? [])]);
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !hidden.has(k)) baseEnv[k] = v;
  Object.assign(baseEnv, options.env);
  const captureLimit = options.captureLimit ?? 10_000_000;
  const live = new Set<number>();
  const track = (child: ChildProcess, running: boolean) => {
    if (!child.pid) return;
    if (running) live.add(child.pid);
    else live.delete(child.pid);
  };

  const launcher = new Launcher(baseEnv);

  function exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const timeout = opts.timeout ?? options.timeout;
    // Absolute: the helper does not run in this process's folder.
    const cwd = resolve(opts.cwd ?? options.cwd);
    // Commands without stdin go through the helper shell (no fork of this process); see launcher.ts.
    const launched =
      opts.stdin === undefined
        ? launcher.run({ command, cwd, env: opts.env ?? {}, timeout, signal: opts.signal, captureLimit })
        : null;
    if (launched) return launched;
    return runCaptured(["bash", "-c", command], {
      cwd: opts.cwd ?? options.cwd,
      env: { ...baseEnv, ...opts.env },
      timeout: opts.timeout ?? options.timeout,
      stdin: opts.stdin,
      signal: opts.signal,
      captureLimit,
      track,
    });
  }

  function spawnProcess(
    argv: string[],
    opts: { cwd?: string; env?: Record<string, string> } = {},
  ): InteractiveProcess {
    return spawnInteractive(argv.length > 0 ? argv : ["bash"], {
      cwd: opts.cwd ?? options.cwd,
      env: { ...baseEnv, ...opts.env },
      track,
    });
  }

  return {
    kind: "local",
    cwd: options.cwd,
    exec,
    spawn: spawnProcess,
    async readFile(path) {
      requireAbsolute(path);
      return readHostFile(path, path);
    },
    async writeFile(path, data) {
      requireAbsolute(path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
    },
    async close() {
      launcher.close();
      for (const pid of live) killGroup(pid, "SIGKILL");
      live.clear();
    },
  };
}
