import { randomBytes } from "node:crypto";
import type { Environment, InteractiveProcess } from "../../environments/types.js";
import { TextCapture } from "./text-capture.js";

/** How one command in the persistent shell ended. */
export interface ShellRun {
  /** What the command printed (stdout and stderr in order), without the shell's bookkeeping. */
  output: string;
  /** The command's exit status; -1 when it timed out or was interrupted; the shell's status when it exited. */
  returncode: number;
  /** True when the command ran past its timeout and was interrupted. */
  timedOut: boolean;
  /** True when the abort signal (the run is stopping), not the timeout, interrupted the command. */
  interrupted?: boolean;
  /** Set when the shell was replaced by a fresh one after this command: why (its state is lost). */
  reset?: "exited" | "unresponsive";
  /** True when the shell had died between commands, so this command ran in a fresh one. */
  restartedBefore?: boolean;
}

/** Timing and memory limits of a persistent shell. */
export interface PersistentShellOptions {
  /** Milliseconds to wait for a command to stop after each Ctrl-C before giving up on the shell. */
  graceMs: number;
  /** Characters of output kept per command. */
  captureLimit: number;
}

/** How a wait ended: the end marker, the shell's exit, the time allowed, or the abort signal. */
type Outcome = "done" | "exited" | "timeout" | "aborted";

interface Pending {
  capture: TextCapture;
  /** The last characters received, searched for the end marker. */
  window: string;
  pattern: RegExp;
  status?: number;
  exitCode?: number | null;
  wake?: () => void;
}

/** Milliseconds allowed for output still in the pipe to arrive after the shell exited. */
const DRAIN_MS = 100;

/**
 * One long-lived `bash` in the environment, so `cd`, variables and functions carry over between
 * commands. Each command is sent as a here-document that the shell `source`s with standard input
 * from /dev/null, followed by a `printf` of a random end marker with the exit status: the shell
 * parses the whole command before running it, no command can swallow the next one's input, and
 * output is exact (no newline is added). Standard error is merged into standard output inside the
 * shell, so the two keep their order. Ctrl-C (SIGINT to the process group) ends the running command
 * only: the shell's INT trap returns from the sourced command and the shell lives on.
 */
export class PersistentShell {
  private proc?: InteractiveProcess;
  private generation = 0;
  private pending?: Pending;
  private stray = "";
  private diedIdle = false;

  constructor(
    readonly env: Environment,
    private readonly options: PersistentShellOptions,
  ) {}

  private start(spawn: NonNullable<Environment["spawn"]>): InteractiveProcess {
    const generation = ++this.generation;
    const proc = spawn(["bash", "--noprofile", "--norc"], { cwd: this.env.cwd });
    proc.onData((chunk) => {
      if (generation === this.generation) this.receive(chunk);
    });
    proc.onExit((code) => {
      if (generation !== this.generation) return;
      this.proc = undefined;
      const pending = this.pending;
      if (pending) setTimeout(() => this.settle(pending, { exitCode: code }), DRAIN_MS);
      else this.diedIdle = true;
    });
    proc.write("exec 2>&1\n");
    return proc;
  }

  private receive(chunk: string): void {
    const pending = this.pending;
    if (!pending || pending.status !== undefined) {
      this.stray = (this.stray + chunk).slice(-10_000);
      return;
    }
    pending.capture.push(chunk);
    pending.window = (pending.window + chunk).slice(-(chunk.length + 200));
    const match = pending.pattern.exec(pending.window);
    if (!match) return;
    const after = pending.window.length - match.index - match[0].length;
    pending.capture.dropEnd(match[0].length + after);
    if (after > 0) this.stray = pending.window.slice(pending.window.length - after);
    this.settle(pending, { status: Number.parseInt(match[1], 10) });
  }

  private settle(pending: Pending, result: { status?: number; exitCode?: number | null }): void {
    if (pending.status !== undefined || pending.exitCode !== undefined) return;
    if (result.status !== undefined) pending.status = result.status;
    else pending.exitCode = result.exitCode ?? null;
    pending.wake?.();
  }

  private wait(pending: Pending, ms: number, signal?: AbortSignal): Promise<Outcome> {
    const outcome = (): Outcome | undefined =>
      pending.status !== undefined ? "done" : pending.exitCode !== undefined ? "exited" : undefined;
    const now = outcome();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (value: Outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        pending.wake = undefined;
        resolve(value);
      };
      const onAbort = () => finish("aborted");
      const timer = Number.isFinite(ms) ? setTimeout(() => finish("timeout"), ms) : undefined;
      pending.wake = () => finish(outcome() ?? "timeout");
      if (signal?.aborted) finish("aborted");
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Runs one command, waiting up to `timeoutSec` (0: no limit); on timeout or abort it is interrupted (twice at
   * most), and a shell that still does not come back is killed and replaced.
   */
  async run(command: string, timeoutSec: number, signal?: AbortSignal): Promise<ShellRun> {
    const spawn = this.env.spawn?.bind(this.env);
    if (!spawn) throw new Error("this environment cannot start a long-lived process");
    const restartedBefore = this.diedIdle;
    this.diedIdle = false;
    this.proc ??= this.start(spawn);
    const proc = this.proc;
    const id = randomBytes(8).toString("hex");
    const pending: Pending = {
      capture: new TextCapture(this.options.captureLimit),
      window: "",
      pattern: new RegExp(`__PL_DONE_${id}:(-?\\d+)\\n`),
    };
    pending.capture.push(this.stray);
    this.stray = "";
    this.pending = pending;
    const body = command.endsWith("\n") ? command : `${command}\n`;
    proc.write(
      `trap 'return 130' INT; source /dev/fd/3 3<<'__PL_END_${id}' </dev/null; ` +
        `printf '%s%s:%d\\n' '__PL_DONE_' '${id}' "$?"\n${body}__PL_END_${id}\n`,
    );
    let outcome = await this.wait(
      pending,
      timeoutSec > 0 ? timeoutSec * 1000 : Number.POSITIVE_INFINITY,
      signal,
    );
    const interrupted = outcome === "aborted";
    const stopped = outcome === "timeout" || interrupted;
    for (let tries = 0; (outcome === "timeout" || outcome === "aborted") && tries < 2; tries++) {
      proc.interrupt();
      outcome = await this.wait(pending, this.options.graceMs);
    }
    this.pending = undefined;
    const output = pending.capture.text();
    const base = {
      output,
      timedOut: stopped && !interrupted,
      ...(interrupted ? { interrupted } : {}),
      ...(restartedBefore ? { restartedBefore } : {}),
    };
    if (outcome === "done") return { ...base, returncode: stopped ? -1 : (pending.status ?? -1) };
    if (outcome === "exited") {
      return { ...base, returncode: stopped ? -1 : (pending.exitCode ?? -1), reset: "exited" };
    }
    this.close();
    return { ...base, returncode: -1, reset: "unresponsive" };
  }

  /** Kills the shell and everything it started; the next `run` starts a fresh one. */
  close(): void {
    const proc = this.proc;
    this.proc = undefined;
    this.generation++;
    if (proc && !proc.exited) proc.kill();
  }
}
