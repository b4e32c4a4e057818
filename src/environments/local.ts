import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import { OutputCapture } from "./output-capture.js";
import type { Environment, ExecOptions, ExecResult, InteractiveProcess } from "./types.js";

export interface LocalEnvironmentOptions {
  /** The task's directory on the host. */
  cwd: string;
  /** Variables added to every command (on top of the host's environment). */
  env?: Record<string, string>;
  /** Default per-command timeout in seconds. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit?: number;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Runs commands directly on the host. Nothing is isolated: the agent can touch anything you can. */
export function createLocalEnvironment(options: LocalEnvironmentOptions): Environment {
  const baseEnv = { ...process.env, ...options.env } as Record<string, string>;
  const captureLimit = options.captureLimit ?? 10_000_000;
  const live = new Set<number>();

  function exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return new Promise((resolve) => {
      const child = spawn("bash", ["-c", command], {
        cwd: opts.cwd ?? options.cwd,
        env: { ...baseEnv, ...opts.env },
        detached: true,
        stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
      if (child.pid) live.add(child.pid);
      const capture = new OutputCapture(captureLimit);
      child.stdout?.on("data", (c: Buffer) => capture.push(c));
      child.stderr?.on("data", (c: Buffer) => capture.push(c));
      if (opts.stdin !== undefined && child.stdin) {
        child.stdin.on("error", () => {});
        child.stdin.end(opts.stdin);
      }
      let timedOut = false;
      const timeoutSec = opts.timeout ?? options.timeout;
      const timer =
        timeoutSec && timeoutSec > 0
          ? setTimeout(() => {
              timedOut = true;
              killGroup(child.pid, "SIGKILL");
            }, timeoutSec * 1000)
          : undefined;
      const onAbort = () => {
        timedOut = true;
        killGroup(child.pid, "SIGKILL");
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      child.on("error", (err) => {
        clearTimeout(timer);
        resolve({ output: `failed to start bash: ${err.message}`, returncode: 127, timedOut: false });
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        if (child.pid) live.delete(child.pid);
        // Background jobs left by the command would keep pipes open; the group is done with.
        killGroup(child.pid, "SIGKILL");
        resolve({
          output: capture.text(),
          returncode: timedOut ? -1 : (code ?? -1),
          timedOut,
          truncated: capture.truncated,
        });
      });
    });
  }

  function spawnProcess(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): InteractiveProcess {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd ?? options.cwd,
      env: { ...baseEnv, ...opts.env },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    if (child.pid) live.add(child.pid);
    let exited = false;
    const exitListeners: Array<(code: number | null) => void> = [];
    child.on("exit", (code) => {
      exited = true;
      if (child.pid) live.delete(child.pid);
      for (const l of exitListeners) l(code);
    });
    child.on("error", () => {
      exited = true;
      for (const l of exitListeners) l(null);
    });
    child.stdin.on("error", () => {});
    return {
      write: (data) => {
        if (!exited) child.stdin.write(data);
      },
      onData: (listener) => {
        child.stdout.on("data", (c: Buffer) => listener(c.toString("utf8")));
        child.stderr.on("data", (c: Buffer) => listener(c.toString("utf8")));
      },
      onExit: (listener) => {
        exitListeners.push(listener);
      },
      kill: () => killGroup(child.pid, "SIGKILL"),
      interrupt: () => killGroup(child.pid, "SIGINT"),
      get exited() {
        return exited;
      },
    };
  }

  function requireAbsolute(path: string): void {
    if (!isAbsolute(path)) throw new Error(`path must be absolute, got ${JSON.stringify(path)}`);
  }

  return {
    kind: "local",
    cwd: options.cwd,
    exec,
    spawn: spawnProcess,
    async readFile(path) {
      requireAbsolute(path);
      return readFile(path);
    },
    async writeFile(path, data) {
      requireAbsolute(path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
    },
    async close() {
      for (const pid of live) killGroup(pid, "SIGKILL");
      live.clear();
    },
  };
}
