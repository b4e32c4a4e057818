import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { environmentProblem } from "../../src/environments/preflight.js";
import { tempDir } from "../support/tmp.js";

const envOf = (args: string[]) =>
  loadConfig({ configArgs: ["swebench", ...args], defaultConfig: "swebench" }).config.environment;

describe("environment preflight", () => {
  it("local needs nothing", async () => {
    expect(await environmentProblem(envOf(["environment.environment_class=local"]))).toBeNull();
  });

  it("an engine whose daemon is down is one clear error naming the engine's own message", async () => {
    const exe = join(tempDir(), "docker");
    writeFileSync(
      exe,
      '#!/bin/sh\n[ "$1" = info ] || exit 3\necho "Cannot connect to the Docker daemon at unix:///nowhere.sock." >&2\nexit 1\n',
    );
    chmodSync(exe, 0o755);
    expect(await environmentProblem(envOf([`environment.executable=${exe}`]))).toBe(
      `environment docker: \`${exe} info\` failed: Cannot connect to the Docker daemon at unix:///nowhere.sock. ` +
        "Start the engine (e.g. the Docker daemon) and try again, or choose another environment " +
        "(--environment docker|podman, or local|bwrap with --repos-dir).",
    );
  });

  it("a missing executable says so", async () => {
    const problem = await environmentProblem(
      envOf(["environment.environment_class=podman", "environment.executable=/nonexistent/podman"]),
    );
    expect(problem).toBe(
      "environment podman: `/nonexistent/podman info` failed: /nonexistent/podman was not found on PATH " +
        "(install it, or set environment.executable). Start the engine (e.g. the Docker daemon) and try again, " +
        "or choose another environment (--environment docker|podman, or local|bwrap with --repos-dir).",
    );
  });

  it("an engine that answers passes", async () => {
    const exe = join(tempDir(), "docker");
    writeFileSync(exe, '#!/bin/sh\n[ "$1" = info ] && echo "Server Version: 27" && exit 0\nexit 3\n');
    chmodSync(exe, 0o755);
    expect(await environmentProblem(envOf([`environment.executable=${exe}`]))).toBeNull();
  });
});
