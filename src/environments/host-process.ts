import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { OutputCapture } from "./output-capture.js";
import type { ExecResult, InteractiveProcess } from "./types.js";

/** Sends `signal` to the process group led by `pid`; a group that is already gone is not an error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The environment a child gets. Node's stdio "pipes" are socket pairs, and bash treats a socket on
 * stdin as a remote shell invocation: with SHLVL unset it then reads ~/.bashrc even when not
 * interactive. SHLVL=1 (bash makes it 2) keeps commands free of the user's rc files.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return env.SHLVL === undefined ? { ...env, SHLVL: "1" } : env;
}

/** How one captured host process is started and stopped. */
export interface CapturedRunOptions {
  /** Host working directory of the spawned program. */
  cwd: string;
  /** The complete environment of the spawned program. */
  env: Record<string, string>;
  /** Seconds before `stop` is called; 0 or undefined: no limit. */
  timeout?: number;
  stdin?: string | Buffer;
  signal?: AbortSignal;
  /** Bytes of output kept (head and tail). */
  captureLimit: number;
  /**
   * Stops the run after a timeout or an abort. Defaults to SIGKILL of the process group. Container
   * environments also kill the command inside the container here.
   */
  stop?: (child: ChildProcess) => Promise<void> | void;
  /** Called with the child right after it is spawned (and again with `undefined` when it is gone). */
  track?: (child: ChildProcess, running: boolean) => void;
}

/**
 * Runs `argv` on the host in a new process group and captures stdout and stderr together, up to
 * `captureLimit` bytes. A timeout or an abort calls `stop` and reports returncode -1 with the output
 * produced so far, and `timedOut` (the timer stopped it) or `interrupted` (the signal did). Never rejects: a program that cannot start is returncode 127 with the reason.
 */
export function runCaptured(argv: string[], options: CapturedRunOptions): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env: childEnv(options.env),
      detached: true,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    options.track?.(child, true);
    const capture = new OutputCapture(options.captureLimit);
    child.stdout?.on("data", (c: Buffer) => capture.push(c));
    child.stderr?.on("data", (c: Buffer) => capture.push(c));
    if (options.stdin !== undefined && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    let stoppedBy: "timeout" | "abort" | undefined;
    const stop = (why: "timeout" | "abort") => {
      if (stoppedBy) return;
      stoppedBy = why;
      const custom = options.stop ?? ((c: ChildProcess) => killGroup(c.pid, "SIGKILL"));
      Promise.resolve(custom(child))
        .catch(() => {})
        .finally(() => killGroup(child.pid, "SIGKILL"));
    };
    const onAbort = () => stop("abort");
    const timer =
      options.timeout && options.timeout > 0
        ? setTimeout(() => stop("timeout"), options.timeout * 1000)
        : undefined;
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let settled = false;
    const finish = (result: ExecResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      options.track?.(child, false);
      resolve(result);
    };
    child.on("error", (err) => {
      finish({ output: `failed to start ${argv[0]}: ${err.message}`, returncode: 127, timedOut: false });
    });
    // The command is over when its process exits, even if a background job it left still holds the
    // output pipes open: the group is done with (what was written is already in the pipes).
    child.on("exit", () => killGroup(child.pid, "SIGKILL"));
    child.on("close", (code, signal) => {
      killGroup(child.pid, "SIGKILL");
      // Killed by a signal: 128 + its number, as a shell reports it (and as the launcher does).
      const signalled = signal ? 128 + (constants.signals[signal] ?? 0) : -1;
      finish({
        output: capture.text(),
        returncode: stoppedBy ? -1 : (code ?? signalled),
        timedOut: stoppedBy === "timeout",
        ...(stoppedBy === "abort" ? { interrupted: true } : {}),
        truncated: capture.truncated,
      });
    });
  });
}

/** How a long-lived host process is driven. */
export interface InteractiveOptions {
  cwd: string;
  env: Record<string, string>;
  /** Delivers SIGINT to the foreground job; defaults to SIGINT to the spawned process group. */
  interrupt?: (child: ChildProcess) => void;
  /** Kills everything; defaults to SIGKILL to the spawned process group. */
  kill?: (child: ChildProcess) => void;
  track?: (child: ChildProcess, running: boolean) => void;
}

/** Starts `argv` on the host in a new process group with piped stdin/stdout/stderr. */
export function spawnInteractive(argv: string[], options: InteractiveOptions): InteractiveProcess {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: options.cwd,
    env: childEnv(options.env),
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  options.track?.(child, true);
  let exited = false;
  const exitListeners: Array<(code: number | null) => void> = [];
  const onGone = (code: number | null) => {
    if (exited) return;
    exited = true;
    options.track?.(child, false);
    for (const l of exitListeners) l(code);
  };
  child.on("exit", (code) => onGone(code));
  child.on("error", () => onGone(null));
  child.stdin.on("error", () => {});
  // Decoding as a stream keeps a multi-byte character split across chunks intact.
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  return {
    write: (data) => {
      if (!exited) child.stdin.write(data);
    },
    onData: (listener) => {
      child.stdout.on("data", (c: string) => listener(c));
      child.stderr.on("data", (c: string) => listener(c));
    },
    onExit: (listener) => {
      if (exited) listener(child.exitCode);
      else exitListeners.push(listener);
    },
    kill: () => (options.kill ? options.kill(child) : killGroup(child.pid, "SIGKILL")),
    interrupt: () => (options.interrupt ? options.interrupt(child) : killGroup(child.pid, "SIGINT")),
    get exited() {
      return exited;
    },
  };
}
