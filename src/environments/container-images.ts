import { isPodman, runCli, stderrTail } from "./container-cli.js";

/**
 * The fully qualified form of an image name, as podman needs it (it does not assume Docker Hub):
 * `python:3.11` -> `docker.io/library/python:3.11`, `swebench/x:latest` -> `docker.io/swebench/x:latest`.
 * A name whose first component is a registry host (has a `.` or `:`, or is `localhost`) is unchanged.
 */
export function qualifyImageName(name: string): string {
  const slash = name.indexOf("/");
  if (slash === -1) return `docker.io/library/${name}`;
  const first = name.slice(0, slash);
  if (first.includes(".") || first.includes(":") || first === "localhost") return name;
  return `docker.io/${name}`;
}

/** True when the engine has the image locally (`image inspect` succeeds). */
export async function imagePresent(executable: string, name: string): Promise<boolean> {
  const r = await runCli(executable, ["image", "inspect", "--format", "{{.Id}}", name], { timeout: 60 });
  return r.code === 0;
}

/** Outcome of one pull. */
export interface PullOutcome {
  ok: boolean;
  /** Why it failed: the CLI's last error lines, or the timeout. */
  error?: string;
}

/** `executable pull name`, killed after `timeoutSec` seconds. */
export async function pullImage(executable: string, name: string, timeoutSec: number): Promise<PullOutcome> {
  const r = await runCli(executable, ["pull", "--quiet", name], { timeout: timeoutSec });
  if (r.code === 0) return { ok: true };
  if (r.timedOut)
    return { ok: false, error: `pull of ${name} took longer than ${timeoutSec} s (pull_timeout)` };
  return { ok: false, error: stderrTail(r.stderr) };
}

/**
 * Makes sure an image is present and returns the name to run it by: the name as given when the
 * engine has it, for podman its qualified form when that is present, otherwise the pulled name
 * (qualified for podman). Rejects with a readable Error when the pull fails.
 */
export async function ensureImage(executable: string, name: string, pullTimeout: number): Promise<string> {
  if (await imagePresent(executable, name)) return name;
  const wanted = isPodman(executable) ? qualifyImageName(name) : name;
  if (wanted !== name && (await imagePresent(executable, wanted))) return wanted;
  const pulled = await pullImage(executable, wanted, pullTimeout);
  if (!pulled.ok) {
    throw new Error(
      `image ${wanted} is not present in ${executable} and could not be pulled: ${pulled.error}\n` +
        `Pull it ahead (patchloop images pull) or check the name.`,
    );
  }
  return wanted;
}
