import { basename } from "node:path";
import { type ProcessResult, type RunProcessOptions, runProcess } from "../util/run-process.js";

/** What one run of the docker/podman CLI produced (binary-safe stdout, stderr as text). */
export type CliResult = ProcessResult;

/** Options of {@link runCli}: input (then closed), a time limit in seconds, a cap on stdout. */
export type CliOptions = Pick<RunProcessOptions, "input" | "timeout" | "maxStdout">;

/** True when `executable` is podman (by its file name), which needs qualified names and explicit ulimits. */
export function isPodman(executable: string): boolean {
  return basename(executable).startsWith("podman");
}

/**
 * Runs `executable args...` to completion, collecting stdout as bytes (binary-safe) and stderr as
 * text. Never rejects: a missing executable is code 127 with a readable stderr.
 */
export async function runCli(
  executable: string,
  args: string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const r = await runProcess(executable, args, options);
  if (r.notStarted === "not-found")
    return {
      ...r,
      stderr: `${executable} was not found on PATH (install it, or set environment.executable)`,
    };
  return r;
}

/** The last non-empty lines of a CLI's stderr, for error messages. */
export function stderrTail(stderr: string, lines = 5): string {
  const kept = stderr
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0);
  return kept.slice(-lines).join("\n") || "(no error output)";
}
