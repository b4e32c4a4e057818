import type { ChildProcess } from "node:child_process";
import { type CliResult, stderrTail } from "./container-cli.js";
import { WRITE_FILE } from "./container-scripts.js";
import { killGroup } from "./host-process.js";
import type { Launcher } from "./launcher.js";
import { nulProblem, requireAbsolute } from "./paths.js";
import type { Environment, ExecOptions, ExecResult } from "./types.js";

/**
 * The variables every environment gives its commands unless the config's `environment.env` (or
 * `forward_env`) says otherwise: Python writes no `.pyc` files (no `__pycache__` folders turn up in
 * the work tree, the diff or a later `git status`).
 */
export const TASK_DEFAULT_ENV: Readonly<Record<string, string>> = { PYTHONDONTWRITEBYTECODE: "1" };

/** How one command is started without the helper shell (stdin given, or the helper cannot take it). */
export interface DirectRun {
  /** The working directory inside, as the helper would have had it. */
  cwd: string;
  /** The command's own variables (on top of the environment's). */
  env: Record<string, string>;
  timeout?: number;
  stdin?: string;
  signal?: AbortSignal;
  /** Bytes of output kept. */
  captureLimit: number;
}

/** What an environment supplies to {@link execCore}: only what differs between local, bwrap and containers. */
export interface ExecParts {
  /** Named in the answer to a command after `close`: `the NAME environment is closed`. */
  name: string;
  /** The working directory of a command that names none. */
  cwd: string;
  /** Seconds a command may take unless it says otherwise. */
  timeout?: number;
  /** Bytes of output kept per command. */
  captureLimit: number;
  /** The helper shell that starts the commands (launcher.ts), placed where the environment runs. */
  launcher: Launcher;
  isClosed(): boolean;
  /** The working directory as the helper and the direct run get it (local: made absolute). */
  folder?(cwd: string): string;
  /** The variables of one request to the helper (containers: BASH_ENV first). Default: the command's own. */
  requestEnv?(env: Record<string, string>): Record<string, string>;
  /** Runs a command without the helper. */
  direct(command: string, run: DirectRun): Promise<ExecResult>;
  /** Ends every process of the environment (the helper's too: the next command starts a new one). */
  endAll(): Promise<void>;
}

/**
 * The one `exec` of every environment: a command after `close` or holding a NUL byte is refused
 * (as a result, never an exception); one without stdin goes to the helper shell (a write to a
 * pipe, no fork of this process; launcher.ts), any other runs directly; after a timeout every
 * process of the environment is ended, also those that left the command's process group.
 */
export function execCore(p: ExecParts): Environment["exec"] {
  return async (command: string, opts: ExecOptions = {}): Promise<ExecResult> => {
    if (p.isClosed())
      return { output: `the ${p.name} environment is closed`, returncode: -1, timedOut: false };
    const refused = nulProblem(command, opts);
    if (refused) return refused;
    const asked = opts.cwd ?? p.cwd;
    const cwd = p.folder ? p.folder(asked) : asked;
    const env = opts.env ?? {};
    const timeout = opts.timeout ?? p.timeout;
    const launched =
      opts.stdin === undefined
        ? p.launcher.run({
            command,
            cwd,
            env: p.requestEnv ? p.requestEnv(env) : env,
            timeout,
            signal: opts.signal,
            captureLimit: p.captureLimit,
          })
        : null;
    const r = await (launched ??
      p.direct(command, {
        cwd,
        env,
        timeout,
        stdin: opts.stdin,
        signal: opts.signal,
        captureLimit: p.captureLimit,
      }));
    if (r.timedOut && !p.isClosed()) await p.endAll();
    return r;
  };
}

/**
 * The host processes an environment spawned itself (direct runs, interactive processes), so that
 * `close` ends their process groups.
 */
export class SpawnedGroups {
  private readonly live = new Set<number>();

  /** The `track` callback of host-process.ts: records a child while it runs. */
  readonly track = (child: ChildProcess, running: boolean): void => {
    if (!child.pid) return;
    if (running) this.live.add(child.pid);
    else this.live.delete(child.pid);
  };

  /** SIGKILL to the process group of each child still running. */
  killAll(): void {
    for (const pid of this.live) killGroup(pid, "SIGKILL");
    this.live.clear();
  }
}

/** Runs a small program where the environment's files are (a sandbox of the same view, a container), bytes in and out. */
export type FileCallRunner = (
  argv: string[],
  input?: Buffer | string,
  maxStdout?: number,
) => Promise<CliResult>;

/** How {@link fileCalls} words its errors. */
export interface FileCallWords {
  /** Named in the error after `close`: `the NAME environment is closed`. */
  name: string;
  isClosed(): boolean;
  /** Put after the path in errors (` in the container`); default nothing. */
  where?: string;
  /** `cat`'s complaint in words; default its last lines. */
  readProblem?: (stderr: string) => string;
  /** The write's complaint in words; default its last lines. */
  writeProblem?: (stderr: string) => string;
}

/**
 * readFile and writeFile as `cat` and a small `sh` inside the environment, so that every path
 * (symbolic links included) resolves as the environment sees it. The read cap holds on this side
 * of the pipe (the environment's own `cat` may be the model's).
 */
export function fileCalls(
  run: FileCallRunner,
  w: FileCallWords,
): Pick<Environment, "readFile" | "writeFile"> {
  const where = w.where ?? "";
  const closedError = (what: string, path: string) =>
    new Error(`cannot ${what} ${path}${where}: the ${w.name} environment is closed`);
  return {
    async readFile(path, opts) {
      requireAbsolute(path);
      if (w.isClosed()) throw closedError("read", path);
      const cap = opts?.maxBytes;
      const r = await run(["cat", "--", path], undefined, cap === undefined ? undefined : cap + 1);
      if (r.overflowed) return r.stdout;
      if (r.code !== 0) throw new Error(`cannot read ${path}${where}: ${(w.readProblem ?? tail2)(r.stderr)}`);
      return r.stdout;
    },
    async writeFile(path, data) {
      requireAbsolute(path);
      if (w.isClosed()) throw closedError("write", path);
      const r = await run(["sh", "-c", WRITE_FILE, "sh", path], data);
      if (r.code !== 0)
        throw new Error(`cannot write ${path}${where}: ${(w.writeProblem ?? tail2)(r.stderr)}`);
    },
  };
}

const tail2 = (stderr: string) => stderrTail(stderr, 2);
