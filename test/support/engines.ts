import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "vitest";

/**
 * Which engines the tests can use. CI (CI=true) starts them with .ci/engines.sh and a missing one
 * fails the suite; elsewhere a missing engine skips its tests, with the reason in the suite title.
 *
 * Variables read: DOCKER_HOST (the private dockerd of engines_start), PATCHLOOP_TEST_IMAGE (the base
 * image, default patchloop-ci/base:bookworm; podman has it as localhost/<same>), CI.
 */
export type EngineName = "docker" | "podman" | "bwrap";

/** Whether an engine works here, and if not, why. */
export interface EngineStatus {
  ok: boolean;
  reason: string;
}

/** Base image name for docker as engines_start imports it. */
export const BASE_IMAGE = process.env.PATCHLOOP_TEST_IMAGE || "patchloop-ci/base:bookworm";

/** The base image's name as `engine` knows it. */
export function testImage(engine: "docker" | "podman"): string {
  if (engine === "docker") return BASE_IMAGE;
  return BASE_IMAGE.startsWith("localhost/") ? BASE_IMAGE : `localhost/${BASE_IMAGE}`;
}

const cache = new Map<EngineName, EngineStatus>();

function run(cmd: string, args: string[]): { ok: boolean; text: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 60_000 });
  if (r.error) return { ok: false, text: `${cmd} not found (${r.error.message})` };
  return {
    ok: r.status === 0,
    text: `${r.stderr ?? ""}${r.stdout ?? ""}`.trim().split("\n").slice(-2).join(" "),
  };
}

function probe(engine: EngineName): EngineStatus {
  if (engine === "bwrap") {
    const r = run("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]);
    return r.ok ? { ok: true, reason: "" } : { ok: false, reason: `bwrap does not work: ${r.text}` };
  }
  const version = run(engine, ["version", "--format", "{{.Server.Version}}"]);
  if (!version.ok) {
    const hint = engine === "docker" ? ` (DOCKER_HOST=${process.env.DOCKER_HOST ?? "unset"})` : "";
    return { ok: false, reason: `${engine} has no engine to talk to${hint}: ${version.text}` };
  }
  const image = testImage(engine);
  const inspect = run(engine, ["image", "inspect", "--format", "{{.Id}}", image]);
  if (!inspect.ok) return { ok: false, reason: `${engine} lacks the base image ${image}` };
  return { ok: true, reason: "" };
}

/** Cached probe of one engine. */
export function engineStatus(engine: EngineName): EngineStatus {
  let status = cache.get(engine);
  if (!status) {
    status = probe(engine);
    cache.set(engine, status);
  }
  return status;
}

/** True when tests run in CI, where every engine is required. */
export const IN_CI = process.env.CI === "true";

/**
 * `describe` for tests that need `engine`: runs them when it works; in CI a missing engine is a
 * failing test naming the reason; elsewhere the suite is skipped with the reason in its title.
 */
export function describeWithEngine(engine: EngineName, title: string, body: () => void): void {
  const status = engineStatus(engine);
  if (status.ok) {
    describe(title, body);
  } else if (IN_CI) {
    describe(title, () => {
      it(`needs ${engine}`, () => {
        throw new Error(`${engine} is required in CI but ${status.reason}. .ci/run must call engines_start.`);
      });
    });
  } else {
    describe.skip(`${title} [skipped: ${status.reason}]`, body);
  }
}

/** Host processes whose command line contains `marker` (all engines' processes are host processes). */
export function hostProcessesWith(marker: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmd.includes(marker)) found.push(`${name}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
