import { spawn } from "node:child_process";
import { basename } from "node:path";

/** What one run of the docker/podman CLI produced. */
export interface CliResult {
  /** Exit status; 127 when the executable could not be started, -1 when killed. */
  code: number;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  /** True when stdout passed `maxStdout`: the CLI was killed and `stdout` holds the first `maxStdout` bytes. */
  overflowed?: boolean;
}

/** Options of {@link runCli}. */
export interface CliOptions {
  /** Bytes written to the CLI's stdin (then closed). */
  input?: Buffer | string;
  /** Seconds before the CLI process is killed. */
  timeout?: number;
  /** Bytes of stdout kept; when more arrive the CLI is killed (nothing past them is buffered). */
  maxStdout?: number;
}

/** True when `executable` is podman (by its file name), which needs qualified names and explicit ulimits. */
export function isPodman(executable: string): boolean {
  return basename(executable).startsWith("podman");
}

/**
 * Runs `executable args...` to completion, collecting stdout as bytes (binary-safe) and stderr as
 * text. Never rejects: a missing executable is code 127 with a readable stderr.
 */
export function runCli(executable: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(executable, args, {
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let overflowed = false;
    child.stdout?.on("data", (c: Buffer) => {
      if (overflowed) return;
      const room = (options.maxStdout ?? Number.POSITIVE_INFINITY) - kept;
      if (c.length > room) {
        overflowed = true;
        out.push(c.subarray(0, room));
        child.kill("SIGKILL");
        return;
      }
      kept += c.length;
      out.push(c);
    });
    child.stderr?.on("data", (c: Buffer) => err.push(c));
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
    const finish = (r: CliResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    child.on("error", (e: NodeJS.ErrnoException) => {
      const why =
        e.code === "ENOENT"
          ? `${executable} was not found on PATH (install it, or set environment.executable)`
          : `${executable} could not be started: ${e.message}`;
      finish({ code: 127, stdout: Buffer.alloc(0), stderr: why, timedOut: false });
    });
    child.on("close", (code) => {
      finish({
        code: timedOut || code === null ? -1 : code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut,
        ...(overflowed ? { overflowed } : {}),
      });
    });
  });
}

/** The last non-empty lines of a CLI's stderr, for error messages. */
export function stderrTail(stderr: string, lines = 5): string {
  const kept = stderr
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0);
  return kept.slice(-lines).join("\n") || "(no error output)";
}
