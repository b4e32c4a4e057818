import { basename } from "node:path";
import type { EnvironmentConfig } from "../config/schema.js";
import { isPodman, runCli, stderrTail } from "./container-cli.js";

/** The other environments, as the CLI names them. */
const OTHERS = "choose another environment (--environment docker|podman, or local|bwrap with --repos-dir)";

/**
 * Checks once, before a batch starts, that the environment's engine works, so that a stopped
 * Docker daemon is one clear error instead of every instance failing with EnvironmentError.
 * Returns what is wrong and what to do, or null when the engine answers (local: always).
 */
export async function environmentProblem(config: EnvironmentConfig): Promise<string | null> {
  const kind = config.environment_class;
  if (kind === "docker" || kind === "podman") {
    const down = await engineDown(config.executable ?? kind, kind);
    if (!down) return null;
    return down.remedy
      ? `environment ${kind}: ${down.failure} ${down.state}: ${down.remedy}, or ${OTHERS}.`
      : `environment ${kind}: ${down.failure} Or ${OTHERS}.`;
  }
  if (kind === "bwrap") {
    const problem = await bwrapProblem();
    return problem && `environment ${problem}. Or use --environment local|docker|podman.`;
  }
  return null;
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

let bwrapWorks = false;

/**
 * Whether bwrap can create a sandbox here: null when it can (found once per process, then not
 * asked again), else why, with the package to install.
 */
export async function bwrapProblem(): Promise<string | null> {
  if (bwrapWorks) return null;
  const r = await runCli("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "true"], { timeout: 60 });
  if (r.code === 0) {
    bwrapWorks = true;
    return null;
  }
  return (
    `bwrap cannot create a sandbox here: ${stderrTail(r.stderr) || `exit status ${r.code}`} ` +
    "(Debian package: bubblewrap; it needs user or root namespaces)"
  );
}
