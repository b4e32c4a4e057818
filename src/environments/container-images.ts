import { engineDown, isPodman, runCli, stderrTail } from "./container-cli.js";

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

/** The platform of a local image (`linux/amd64`), or undefined when it is not present. */
export async function imagePlatform(executable: string, name: string): Promise<string | undefined> {
  // podman's inspect has no .Variant; os/arch is what both report.
  const format = "{{.Os}}/{{.Architecture}}";
  const r = await runCli(executable, ["image", "inspect", "--format", format, name], { timeout: 60 });
  return r.code === 0 ? r.stdout.toString("utf8").trim() : undefined;
}

/** Whether two platforms name the same thing (`linux/arm64` and `linux/arm64/v8` do). */
export function samePlatform(a: string, b: string): boolean {
  const norm = (p: string) => {
    const [os, arch, variant] = p.toLowerCase().split("/");
    return { os, arch, variant: variant ?? (arch === "arm64" ? "v8" : "") };
  };
  const x = norm(a);
  const y = norm(b);
  return x.os === y.os && x.arch === y.arch && (x.variant === y.variant || !x.variant || !y.variant);
}

/**
 * True when the engine has the image locally (`image inspect` succeeds) and, when `platform` is
 * given, the local image is of that platform.
 */
export async function imagePresent(executable: string, name: string, platform?: string): Promise<boolean> {
  const found = await imagePlatform(executable, name);
  return found !== undefined && (!platform || samePlatform(found, platform));
}

/** Outcome of one pull. */
export interface PullOutcome {
  ok: boolean;
  /** Why it failed: the CLI's last error lines, or the timeout. */
  error?: string;
}

/** `executable pull [--platform P] name`, killed after `timeoutSec` seconds. */
export async function pullImage(
  executable: string,
  name: string,
  timeoutSec: number,
  platform?: string,
): Promise<PullOutcome> {
  const args = ["pull", "--quiet", ...(platform ? ["--platform", platform] : []), name];
  const r = await runCli(executable, args, { timeout: timeoutSec });
  if (r.code === 0) return { ok: true };
  if (r.timedOut)
    return { ok: false, error: `pull of ${name} took longer than ${timeoutSec} s (pull_timeout)` };
  return { ok: false, error: stderrTail(r.stderr) };
}

/**
 * Makes sure an image is present (of `platform`, when given) and returns the name to run it by: the name as given when the
 * engine has it, for podman its qualified form when that is present, otherwise the pulled name
 * (qualified for podman). Rejects with a readable Error when the pull fails.
 */
export async function ensureImage(
  executable: string,
  name: string,
  pullTimeout: number,
  platform?: string,
): Promise<string> {
  if (await imagePresent(executable, name, platform)) return name;
  const wanted = isPodman(executable) ? qualifyImageName(name) : name;
  if (wanted !== name && (await imagePresent(executable, wanted, platform))) return wanted;
  const pulled = await pullImage(executable, wanted, pullTimeout, platform);
  if (!pulled.ok) {
    // Not there and not pulled: the engine may be what is down, not the image that is missing.
    const down = await engineDown(executable, isPodman(executable) ? "podman" : "docker");
    if (down)
      throw new Error(
        `image ${wanted} cannot be looked up or pulled: ${down.failure}${down.state ? ` ${down.state}: ${down.remedy}.` : ""}`,
      );
    throw new Error(
      `image ${wanted} is not present in ${executable} and could not be pulled: ${pulled.error}\n` +
        `Pull it ahead (patchloop images pull) or check the name.`,
    );
  }
  return wanted;
}
