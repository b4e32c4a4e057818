import { spawn } from "node:child_process";

/** How {@link runProcess} starts and bounds one program. */
export interface RunProcessOptions {
  /** Working directory; default this process's. */
  cwd?: string;
  /** The program's complete environment; default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Written to the program's standard input, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
  /** Seconds before the program is killed (SIGKILL); 0 or undefined: no limit. */
  timeout?: number;
  /** Bytes of stdout kept; when more arrive the program is killed and `overflowed` is set. Default: no cap. */
  maxStdout?: number;
  /** Bytes of stderr kept, the last ones (the program is not killed for more). Default 1 MiB. */
  maxStderr?: number;
}

/** What one program run produced. */
export interface ProcessResult {
  /** Exit status; 127 when the program could not be started, -1 when it was killed (limit, cap or signal). */
  code: number;
  /** Standard output as bytes (binary-safe): at most `maxStdout`. */
  stdout: Buffer;
  /** Standard error as text: its last `maxStderr` bytes. */
  stderr: string;
  /** True when the time limit killed it, and only then. */
  timedOut: boolean;
  /** True when stdout passed `maxStdout` and the program was killed for it. */
  overflowed?: true;
  /** Set when the program could not be started: `not-found` (not on PATH, or no such file), else `failed`; `stderr` says why. */
  notStarted?: "not-found" | "failed";
}

const DEFAULT_MAX_STDERR = 1024 * 1024;

/**
 * Runs `program args...` to completion, without a shell, and collects what it printed. Never
 * rejects: a program that cannot start is code 127 with the reason in `stderr` (and `notStarted`).
 * The one place patchloop spawns a short-lived helper program on this machine (git, docker,
 * podman, bwrap's file calls); each caller keeps its own meaning of the result.
 */
export function runProcess(
  program: string,
  args: string[],
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const maxStdout = options.maxStdout ?? Number.POSITIVE_INFINITY;
    const maxStderr = options.maxStderr ?? DEFAULT_MAX_STDERR;
    const out: Buffer[] = [];
    let kept = 0;
    let overflowed = false;
    const err: Buffer[] = [];
    let errBytes = 0;
    child.stdout?.on("data", (c: Buffer) => {
      if (overflowed) return;
      if (c.length > maxStdout - kept) {
        overflowed = true;
        out.push(c.subarray(0, maxStdout - kept));
        child.kill("SIGKILL");
        return;
      }
      kept += c.length;
      out.push(c);
    });
    child.stderr?.on("data", (c: Buffer) => {
      err.push(c);
      errBytes += c.length;
      // the oldest chunks go once the tail alone holds enough
      while (err.length > 1 && errBytes - err[0].length >= maxStderr)
        errBytes -= (err.shift() as Buffer).length;
    });
    if (options.input !== undefined && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
    let timedOut = false;
    const timer =
      options.timeout && options.timeout > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, options.timeout * 1000)
        : undefined;
    let settled = false;
    const finish = (r: ProcessResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    child.on("error", (e: NodeJS.ErrnoException) => {
      finish({
        code: 127,
        stdout: Buffer.alloc(0),
        stderr: `${program} could not be started: ${e.message}`,
        timedOut: false,
        notStarted: e.code === "ENOENT" ? "not-found" : "failed",
      });
    });
    const ended = (code: number | null) =>
      finish({
        code: timedOut || overflowed || code === null ? -1 : code,
        stdout: Buffer.concat(out),
        stderr: tail(Buffer.concat(err), maxStderr).toString("utf8"),
        timedOut,
        ...(overflowed ? { overflowed: true as const } : {}),
      });
    // A program killed here is done with when it exits, even if something it started still holds
    // its output pipes open (a shell's child): the time limit holds for the caller.
    child.on("exit", (code) => {
      if (!timedOut && !overflowed) return;
      child.stdout?.destroy();
      child.stderr?.destroy();
      ended(code);
    });
    child.on("close", ended);
  });
}

function tail(b: Buffer, max: number): Buffer {
  return b.length > max ? b.subarray(b.length - max) : b;
}
