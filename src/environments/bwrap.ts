import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { killGroup, runCaptured, spawnInteractive } from "./host-process.js";
import { Launcher } from "./launcher.js";
import { isWithin, readHostFile, requireAbsolute } from "./paths.js";
import { childrenOf, descendantsOf, namespacePids } from "./proc-tree.js";
import type { Environment, ExecOptions, ExecResult, InteractiveProcess } from "./types.js";

/** Options of {@link createBwrapEnvironment}. */
export interface BwrapEnvironmentOptions {
  /** Host directory of the repository: bound read-write at the same path inside the sandbox. */
  repoDir: string;
  /** Working directory inside the sandbox; defaults to `repoDir`. */
  cwd?: string;
  /**
   * Variables of every command. The sandbox does not inherit the host's environment (API keys stay
   * outside): it gets PATH, HOME, LANG, LC_ALL, TERM and USER from the host, then these.
   */
  env?: Record<string, string>;
  /** Default per-command timeout in seconds. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit?: number;
  /** `none` (default): no network at all; `host`: the host's network. */
  network?: "none" | "host";
  /** The bubblewrap executable; default `bwrap`. */
  executable?: string;
}

const PASSED_HOST_VARS = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "USER"];

/**
 * Runs commands in a bubblewrap sandbox (one per environment, where a helper shell starts each
 * command in its own process group; see launcher.ts): the host's filesystem read-only, the repository
 * read-write at its host path, a private /tmp kept for the environment's lifetime (a host temp
 * folder, removed by `close`), fresh /dev and /proc, every namespace unshared (network too unless
 * `network: "host"`), and the sandbox killed with its parent.
 *
 * readFile/writeFile: paths under the repository and under /tmp map to the host folders; any other
 * path is read from the host (the sandbox sees the same read-only file) and cannot be written.
 */
export function createBwrapEnvironment(options: BwrapEnvironmentOptions): Environment {
  const repoDir = resolve(options.repoDir);
  const cwd = options.cwd ?? repoDir;
  const executable = options.executable ?? "bwrap";
  const hostTmp = mkdtempSync(join(tmpdir(), "patchloop-bwrap-"));
  const captureLimit = options.captureLimit ?? 10_000_000;
  const baseEnv: Record<string, string> = {};
  for (const name of PASSED_HOST_VARS) {
    const value = process.env[name];
    if (value !== undefined) baseEnv[name] = value;
  }
  Object.assign(baseEnv, options.env);
  const live = new Set<number>();
  const track = (child: ChildProcess, running: boolean) => {
    if (!child.pid) return;
    if (running) live.add(child.pid);
    else live.delete(child.pid);
  };
  let closed = false;

  function sandboxArgv(innerCwd: string, command: string[]): string[] {
    return [
      executable,
      "--ro-bind",
      "/",
      "/",
      "--bind",
      hostTmp,
      "/tmp",
      "--bind",
      repoDir,
      repoDir,
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-all",
      ...(options.network === "host" ? ["--share-net"] : []),
      "--die-with-parent",
      // setsid() in the sandbox: no terminal injection, and the sandbox's own process group is what
      // `interrupt` signals (its leader, bwrap's init, ignores SIGINT sent from outside).
      "--new-session",
      "--chdir",
      innerCwd,
      "--",
      ...command,
    ];
  }

  // One sandbox for the environment's commands: a helper shell in it starts each one (see launcher.ts).
  const launcher = new Launcher(baseEnv, {
    wrap: (argv) => sandboxArgv("/", argv),
    // The command is the process whose pid one namespace below ours is the one the helper reported
    // (deeper namespaces, such as a bwrap the command started, do not count).
    kill: (helper, pid) => {
      const depth = namespacePids(process.pid).length;
      const match = helper.pid
        ? descendantsOf(helper.pid).find((p) => {
            const ids = namespacePids(p.pid);
            return ids.length === depth + 1 && ids[depth] === pid;
          })
        : undefined;
      killGroup(match?.pid, "SIGKILL");
    },
  });

  function exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    if (closed) return Promise.resolve(closedResult());
    const launched =
      opts.stdin === undefined
        ? launcher.run({
            command,
            cwd: opts.cwd ?? cwd,
            env: opts.env ?? {},
            timeout: opts.timeout ?? options.timeout,
            signal: opts.signal,
            captureLimit,
          })
        : null;
    if (launched) return launched;
    return runCaptured(sandboxArgv(opts.cwd ?? cwd, ["bash", "-c", command]), {
      cwd: "/",
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
    return spawnInteractive(sandboxArgv(opts.cwd ?? cwd, argv.length > 0 ? argv : ["bash"]), {
      cwd: "/",
      env: { ...baseEnv, ...opts.env },
      track,
      // Outer bwrap -> bwrap as PID 1 of the sandbox (session and group leader) -> the program.
      interrupt: (child) => {
        if (!child.pid) return;
        const init = childrenOf(child.pid).find((p) => p.comm === "bwrap");
        if (init && init.pgid > 1) killGroup(init.pgid, "SIGINT");
      },
    });
  }

  /** The host path of a sandbox path, or undefined when the sandbox cannot write there. */
  function writableHostPath(path: string): string | undefined {
    if (isWithin(repoDir, path)) return resolve(path);
    if (isWithin("/tmp", path)) return join(hostTmp, relative("/tmp", resolve(path)));
    return undefined;
  }

  return {
    kind: "bwrap",
    cwd,
    exec,
    spawn: spawnProcess,
    async readFile(path) {
      requireAbsolute(path);
      return readHostFile(writableHostPath(path) ?? path, path);
    },
    async writeFile(path, data) {
      requireAbsolute(path);
      const host = writableHostPath(path);
      if (!host) {
        throw new Error(
          `cannot write ${path}: the bwrap sandbox is read-only there (writable: ${repoDir} and /tmp)`,
        );
      }
      await mkdir(dirname(host), { recursive: true });
      await writeFile(host, data);
    },
    async close() {
      closed = true;
      launcher.close();
      for (const pid of live) killGroup(pid, "SIGKILL");
      live.clear();
      await rm(hostTmp, { recursive: true, force: true });
    },
  };
}

function closedResult(): ExecResult {
  return { output: "the bwrap environment is closed", returncode: -1, timedOut: false };
}
