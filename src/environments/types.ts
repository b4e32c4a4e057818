/**
 * The one interface every tool uses to touch a task's machine: the host, a bubblewrap sandbox
 * or a container. Nothing outside src/environments reads the host filesystem for a task.
 */
export interface ExecOptions {
  /** Working directory inside the environment; defaults to the environment's `cwd`. */
  cwd?: string;
  /** Seconds before the command (its whole process group / exec) is killed; partial output is kept. */
  timeout?: number;
  /** Extra environment variables for this command only. */
  env?: Record<string, string>;
  /** Text written to the command's standard input (then closed). */
  stdin?: string;
  /** Aborting kills the command like a timeout does; the result then says `interrupted`, not `timedOut`. */
  signal?: AbortSignal;
}

export interface ExecResult {
  /** stdout and stderr interleaved as produced, decoded as UTF-8, capped (see `truncated`). */
  output: string;
  /** Exit status; -1 when stopped by the timeout or the abort signal. */
  returncode: number;
  /** True when the timeout (`ExecOptions.timeout`) stopped the command, and only then. */
  timedOut: boolean;
  /**
   * True when the abort signal (`ExecOptions.signal`) stopped the command (the run is stopping, not
   * the command too slow); `timedOut` is then false. Absent otherwise.
   */
  interrupted?: boolean;
  /** True when the output passed the capture cap and the middle was dropped. */
  truncated?: boolean;
}

/** A long-lived process inside the environment (used by the persistent bash shell). */
export interface InteractiveProcess {
  write(data: string): void;
  onData(listener: (chunk: string) => void): void;
  onExit(listener: (code: number | null) => void): void;
  /** Kills the process and its children. */
  kill(): void;
  /** Sends SIGINT to the foreground job / process group (interrupts a running command). */
  interrupt(): void;
  readonly exited: boolean;
}

/** Options of {@link Environment.readFile}. */
export interface ReadFileOptions {
  /**
   * Reads at most this many bytes and one more: a result longer than `maxBytes` means the file is
   * larger (the rest is never read nor buffered). Without it the whole file is read.
   */
  maxBytes?: number;
}

export interface Environment {
  /** `local`, `bwrap`, `docker`, `podman`. */
  readonly kind: string;
  /** The task's working directory (the repository root) as seen inside the environment. */
  readonly cwd: string;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Reads a file by absolute path inside the environment. Rejects with a readable Error if missing. */
  readFile(path: string, options?: ReadFileOptions): Promise<Buffer>;
  /** Writes a file by absolute path inside the environment, creating parent directories. */
  writeFile(path: string, data: Buffer | string): Promise<void>;
  /** Starts `bash` (or the given argv) as a long-lived process in the environment. */
  spawn?(argv: string[], options?: { cwd?: string; env?: Record<string, string> }): InteractiveProcess;
  /** Releases everything (container, sandbox, processes). Safe to call twice. */
  close(): Promise<void>;
}
