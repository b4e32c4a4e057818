import type { EnvironmentConfig } from "../config/schema.js";
import { engineDown, runCli, stderrTail } from "./container-cli.js";

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
