import { ArgumentError, errorResult, rejectUnknown, requireString } from "./base/args.js";
import type { Tool, ToolContext, ToolResult } from "./base/types.js";
import { PersistentShell, type ShellRun } from "./bash/persistent-shell.js";
import { clipMiddle } from "./clip.js";

/** How the bash tool runs commands. */
export interface BashToolOptions {
  /** `fresh` (default): a new shell per command. `persistent`: one shell per tool instance. */
  mode?: "fresh" | "persistent";
  /** Characters of output shown before the middle is left out. Default 30000. */
  outputLimit?: number;
  /** Persistent mode: milliseconds a command gets to stop after Ctrl-C. Default 2000. */
  interruptGraceMs?: number;
  /** Persistent mode: characters of output captured per command. Default 10 million. */
  captureLimit?: number;
}

const SEE_ALL =
  "To see all of it, write it to a file (command > out.txt 2>&1) and read parts with head, tail, grep -n or sed -n.";

const FRESH_DESCRIPTION = [
  "Run a bash command in the task's environment and get its output (standard output and standard error together) and exit status.",
  "Every call starts a new shell in the repository's root directory: cd and exported variables do not carry over to the next call, so chain steps in one command (cd src && python -m pytest -x tests/test_io.py).",
  "Commands get no input: do not start interactive programs (editors, pagers, a bare python prompt). A command that runs past the time limit is stopped, and you get what it printed until then. Very long output is shortened in the middle.",
].join("\n");

const PERSISTENT_DESCRIPTION = [
  "Run a bash command in the task's environment and get its output (standard output and standard error together) and exit status.",
  "One shell is kept for the whole task: the working directory, exported variables and functions carry over from one call to the next.",
  "Commands get no input: do not start interactive programs (editors, pagers, a bare python prompt). A command that runs past the time limit is interrupted (Ctrl-C) and you get what it printed until then; the shell keeps its state. Running exit (or killing the shell) replaces it with a new shell and loses that state. Very long output is shortened in the middle.",
].join("\n");

function duration(seconds: number): string {
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** What the model is told about a command that was stopped, by the abort signal or by its timeout. */
function stopNote(interrupted: boolean, ctx: ToolContext, how: string): string {
  if (interrupted) {
    return `[The command was ${how} because the agent is stopping; the output above is what it printed until then.]`;
  }
  return (
    `[The command timed out after ${duration(ctx.timeout)} and was ${how}; the output above is what it printed ` +
    `until then. Make it faster (a smaller input, fewer tests) or split it into steps.]`
  );
}

function resetNote(run: ShellRun, ctx: ToolContext): string {
  const lost = `the working directory is back to ${ctx.env.cwd}, and variables, functions and aliases set earlier are gone`;
  if (run.reset === "unresponsive") {
    const why = run.interrupted
      ? "The agent is stopping, and the command"
      : `The command timed out after ${duration(ctx.timeout)} and`;
    return (
      `[${why} did not stop when interrupted, so the shell was ` + `killed and a new one started: ${lost}.]`
    );
  }
  const how =
    run.timedOut || run.interrupted
      ? "ended"
      : run.returncode === -1
        ? "was killed"
        : `exited with status ${run.returncode}`;
  return (
    `[The shell ${how} while running this command (exit, kill $$ or set -e end it), so a new shell ` +
    `will run your next command: ${lost}. To leave early from a script without ending the shell, use a ` +
    `subshell: ( ...; exit 1 ).]`
  );
}

function joinNote(output: string, note: string): string {
  if (output === "") return note;
  return output.endsWith("\n") ? `${output}${note}` : `${output}\n${note}`;
}

/** Keeps the command's own output when the model sees it clipped (the submission is read from it). */
function withRaw(result: ToolResult, raw: string, limit: number): ToolResult {
  return raw.length > limit ? { ...result, fullOutput: raw } : result;
}

/**
 * The bash tool. Fresh mode runs each command through `env.exec`; persistent mode keeps one shell
 * per tool instance (per environment), and falls back to fresh mode, saying so once, where the
 * environment cannot keep a process running. `close()` ends the persistent shell.
 */
export function createBashTool(options: BashToolOptions = {}): Tool {
  const mode = options.mode ?? "fresh";
  const outputLimit = options.outputLimit ?? 30_000;
  const graceMs = options.interruptGraceMs ?? 2000;
  const captureLimit = options.captureLimit ?? 10_000_000;
  let shell: PersistentShell | undefined;
  let fallbackNoted = false;
  let queue: Promise<unknown> = Promise.resolve();

  async function runFresh(command: string, ctx: ToolContext, note: string): Promise<ToolResult> {
    const result = await ctx.env.exec(command, { timeout: ctx.timeout, signal: ctx.signal });
    let output = clipMiddle(result.output, outputLimit, SEE_ALL);
    if (result.timedOut || result.interrupted)
      output = joinNote(output, stopNote(result.interrupted === true, ctx, "stopped"));
    if (note) output = joinNote(output, note);
    return withRaw(
      {
        output,
        returncode: result.returncode,
        timedOut: result.timedOut,
        ...(result.interrupted ? { interrupted: true } : {}),
      },
      result.output,
      outputLimit,
    );
  }

  async function runPersistent(command: string, ctx: ToolContext): Promise<ToolResult> {
    if (!ctx.env.spawn) {
      const note = fallbackNoted
        ? ""
        : "[Note: this environment cannot keep a shell running, so every command runs in a new shell: cd and export do not carry over.]";
      fallbackNoted = true;
      return runFresh(command, ctx, note);
    }
    if (shell && shell.env !== ctx.env) shell.close();
    if (!shell || shell.env !== ctx.env) shell = new PersistentShell(ctx.env, { graceMs, captureLimit });
    const run = await shell.run(command, ctx.timeout, ctx.signal);
    let output = clipMiddle(run.output, outputLimit, SEE_ALL);
    if (run.restartedBefore) {
      output = joinNote(
        `[The shell had ended since the last command, so this one ran in a new shell starting in ${ctx.env.cwd}.]`,
        output,
      );
    }
    if (run.reset) output = joinNote(output, resetNote(run, ctx));
    else if (run.timedOut || run.interrupted)
      output = joinNote(output, stopNote(run.interrupted === true, ctx, "interrupted (Ctrl-C)"));
    const result: ToolResult = { output, returncode: run.returncode, timedOut: run.timedOut };
    if (run.interrupted) result.interrupted = true;
    return withRaw(result, run.output, outputLimit);
  }

  async function execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    try {
      rejectUnknown(args, ["command"], "bash");
      const command = requireString(args, "command", "the bash command to run");
      if (command.trim() === "") throw new ArgumentError("command is empty; give the bash command to run.");
      return mode === "persistent" ? await runPersistent(command, ctx) : await runFresh(command, ctx, "");
    } catch (err) {
      if (err instanceof ArgumentError) return errorResult(err.message);
      throw err;
    }
  }

  return {
    name: "bash",
    description: mode === "persistent" ? PERSISTENT_DESCRIPTION : FRESH_DESCRIPTION,
    parameters: {
      type: "object",
      properties: { command: { type: "string", description: "The bash command to run." } },
      required: ["command"],
      additionalProperties: false,
    },
    execute(args, ctx) {
      const next = queue.then(() => execute(args, ctx));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      shell?.close();
      shell = undefined;
    },
  };
}
