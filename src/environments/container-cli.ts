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

/** Why a container engine does not answer, in words that name it. */
export interface EngineDown {
  /** `` `docker info` failed: <what it said>. `` (a sentence, ending in its own punctuation). */
  failure: string;
  /** `The Docker engine is not answering` / `Podman is not answering`; empty when the CLI itself is missing (the failure says so). */
  state: string;
  /** What to do about it (`start the Docker daemon (...) and try again`); empty when the CLI is missing. */
  remedy: string;
}

/**
 * Asks the engine behind `executable` whether it answers (`info`): null when it does, else what
 * failed and what to do, for that engine (podman's advice is not Docker's). `kind` names the
 * engine when the executable's name does not (a wrapper script).
 */
export async function engineDown(executable: string, kind: "docker" | "podman"): Promise<EngineDown | null> {
  const r = await runCli(executable, ["info"], { timeout: 60 });
  if (r.code === 0) return null;
  if (r.timedOut)
    return {
      ...ENGINE[engineOf(executable, kind)],
      failure: `\`${executable} info\` did not answer within 60 s.`,
    };
  const why = stderrTail(r.stderr) || `exit status ${r.code}`;
  const failure = `\`${executable} info\` failed: ${why}${/[.?!]$/.test(why) ? "" : "."}`;
  if (r.notStarted === "not-found") return { failure, state: "", remedy: "" };
  return { ...ENGINE[engineOf(executable, kind)], failure };
}

/** The engine an executable drives: by its file name, else the environment's kind. */
function engineOf(executable: string, kind: "docker" | "podman"): "docker" | "podman" {
  if (isPodman(executable)) return "podman";
  return basename(executable).startsWith("docker") ? "docker" : kind;
}

const ENGINE: Record<"docker" | "podman", Omit<EngineDown, "failure">> = {
  docker: {
    state: "The Docker engine is not answering",
    remedy:
      "start the Docker daemon (e.g. `sudo systemctl start docker`, or open Docker Desktop) or point DOCKER_HOST at a running one, and try again",
  },
  podman: {
    state: "Podman is not answering",
    remedy:
      "check what `podman info` says (a remote connection needs its service: `systemctl --user start podman.socket`; " +
      "on macOS and Windows, `podman machine start`), and try again",
  },
};
