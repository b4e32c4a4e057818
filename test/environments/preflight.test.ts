import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { ensureImage } from "../../src/environments/container-images.js";
import { environmentProblem } from "../../src/environments/preflight.js";
import { tempDir } from "../support/tmp.js";

const envOf = (args: string[]) =>
  loadConfig({ configArgs: ["swebench", ...args], defaultConfig: "swebench" }).config.environment;

const OTHERS = "choose another environment (--environment docker|podman, or local|bwrap with --repos-dir).";

/** A stand-in engine CLI named `name`: every call prints `stderr` and fails, except the subcommands in `answers`. */
function fakeEngine(name: string, stderr: string, answers: Record<string, string> = {}): string {
  const exe = join(tempDir(), name);
  const cases = Object.entries(answers)
    .map(([sub, out]) => `  ${sub}) echo "${out}"; exit 0 ;;\n`)
    .join("");
  writeFileSync(exe, `#!/bin/sh\ncase "$1" in\n${cases}esac\necho '${stderr}' >&2\nexit 1\n`);
  chmodSync(exe, 0o755);
  return exe;
}

const DOCKER_DOWN =
  "Cannot connect to the Docker daemon at unix:///nowhere.sock. Is the docker daemon running?";
const PODMAN_DOWN =
  "Cannot connect to Podman. Please verify your connection to the Linux system using `podman system connection list`";

describe("environment preflight", () => {
  it("local needs nothing", async () => {
    expect(await environmentProblem(envOf(["environment.environment_class=local"]))).toBeNull();
  });

  it("a Docker daemon that is down is one clear error: the engine's words, then how to start Docker", async () => {
    const exe = fakeEngine("docker", DOCKER_DOWN);
    expect(await environmentProblem(envOf([`environment.executable=${exe}`]))).toBe(
      `environment docker: \`${exe} info\` failed: ${DOCKER_DOWN} The Docker engine is not answering: start the ` +
        "Docker daemon (e.g. `sudo systemctl start docker`, or open Docker Desktop) or point DOCKER_HOST at a " +
        `running one, and try again, or ${OTHERS}`,
    );
  });

  it("podman that does not answer is named as podman, with podman's remedy (nothing of Docker's)", async () => {
    const exe = fakeEngine("podman", PODMAN_DOWN);
    const problem = await environmentProblem(
      envOf(["environment.environment_class=podman", `environment.executable=${exe}`]),
    );
    expect(problem).toBe(
      `environment podman: \`${exe} info\` failed: ${PODMAN_DOWN}. Podman is not answering: check what ` +
        "`podman info` says (a remote connection needs its service: `systemctl --user start podman.socket`; on " +
        `macOS and Windows, \`podman machine start\`), and try again, or ${OTHERS}`,
    );
    expect(problem).not.toMatch(/Docker (daemon|engine|Desktop)|DOCKER_HOST/);
  });

  it("a missing executable says so, and nothing about starting an engine", async () => {
    const problem = await environmentProblem(
      envOf(["environment.environment_class=podman", "environment.executable=/nonexistent/podman"]),
    );
    expect(problem).toBe(
      "environment podman: `/nonexistent/podman info` failed: /nonexistent/podman was not found on PATH " +
        `(install it, or set environment.executable). Or ${OTHERS}`,
    );
  });

  it("an engine that answers passes", async () => {
    const exe = fakeEngine("docker", "unused", { info: "Server Version: 27" });
    expect(await environmentProblem(envOf([`environment.executable=${exe}`]))).toBeNull();
  });
});

describe("a missing image", () => {
  it("with the Docker daemon down: says the engine does not answer, not to pull ahead", async () => {
    const exe = fakeEngine("docker", DOCKER_DOWN);
    const err = await ensureImage(exe, "acme/app:1", 30).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `image acme/app:1 cannot be looked up or pulled: \`${exe} info\` failed: ${DOCKER_DOWN} The Docker engine is ` +
        "not answering: start the Docker daemon (e.g. `sudo systemctl start docker`, or open Docker Desktop) or " +
        "point DOCKER_HOST at a running one, and try again.",
    );
  });

  it("with podman not answering: names podman and podman's remedy", async () => {
    const exe = fakeEngine("podman", PODMAN_DOWN);
    const err = await ensureImage(exe, "acme/app:1", 30).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `image docker.io/acme/app:1 cannot be looked up or pulled: \`${exe} info\` failed: ${PODMAN_DOWN}. Podman is ` +
        "not answering: check what `podman info` says (a remote connection needs its service: `systemctl --user " +
        "start podman.socket`; on macOS and Windows, `podman machine start`), and try again.",
    );
  });

  it("with the engine answering: the image is missing, pull it ahead or check the name", async () => {
    const exe = fakeEngine("podman", "Error: docker.io/acme/app:1: image not known", { info: "host: x" });
    const err = await ensureImage(exe, "acme/app:1", 30).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `image docker.io/acme/app:1 is not present in ${exe} and could not be pulled: Error: docker.io/acme/app:1: ` +
        "image not known\nPull it ahead (patchloop images pull) or check the name.",
    );
  });
});
