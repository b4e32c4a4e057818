import { runProcess } from "./run-process.js";

/** Options of {@link gitOutput}. */
export interface GitOutputOptions {
  /** Written to git's standard input (then closed). */
  input?: string;
  /** Bytes of output git may print before it is stopped (default 64 MiB). */
  maxStdout?: number;
}

/**
 * Runs git on this machine in `cwd` for patchloop's own bookkeeping (a clone of `--repos-dir`, the
 * history cache, a fresh checkout before any agent ran); resolves what it printed, or rejects with
 * `git ARGS (in CWD) failed: <git's words>`. Not for the person's repository after an agent ran:
 * that goes through interactive/git.ts, which pins the repository and lays safe settings over it.
 */
export async function gitOutput(
  cwd: string,
  args: string[],
  options: GitOutputOptions = {},
): Promise<string> {
  const maxStdout = options.maxStdout ?? 64 * 1024 * 1024;
  const r = await runProcess("git", args, { cwd, input: options.input, maxStdout });
  if (r.code === 0) return r.stdout.toString("utf8");
  const why = r.overflowed
    ? `it printed more than ${maxStdout} bytes`
    : r.stderr.trim() || `exit status ${r.code}`;
  throw new Error(`git ${args.join(" ")} (in ${cwd}) failed: ${why}`);
}
