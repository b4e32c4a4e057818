import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createContainerEnvironment } from "../../src/environments/container.js";
import { ensureImage, qualifyImageName } from "../../src/environments/container-images.js";
import { describeWithEngine, testImage } from "../support/engines.js";
import { tempDir } from "../support/tmp.js";

describe("qualifyImageName", () => {
  it("adds docker.io (and library/) to names without a registry", () => {
    expect(qualifyImageName("python:3.11")).toBe("docker.io/library/python:3.11");
    expect(qualifyImageName("swebench/sweb.eval.x86_64.a_1776_b-1:latest")).toBe(
      "docker.io/swebench/sweb.eval.x86_64.a_1776_b-1:latest",
    );
  });

  it("leaves names that start with a registry host alone", () => {
    for (const name of [
      "docker.io/library/python:3.11",
      "localhost/x:1",
      "127.0.0.1:5000/x/y:2",
      "ghcr.io/o/r",
    ]) {
      expect(qualifyImageName(name)).toBe(name);
    }
  });
});

describeWithEngine("docker", "docker with its daemon out of reach", () => {
  it("a container cannot start: the message says the engine does not answer, not that the image is missing", async () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${join(tempDir(), "no-daemon.sock")}`;
    try {
      const err = await createContainerEnvironment({
        executable: "docker",
        image: testImage("docker"),
      }).catch((e: Error) => e);
      const message = (err as Error).message;
      expect(message).toMatch(
        new RegExp(`^image ${testImage("docker")} cannot be looked up or pulled: \`docker info\` failed: .+`),
      );
      expect(message).toContain(" The Docker engine is not answering: start the Docker daemon");
      expect(message).not.toContain("Pull it ahead");
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});

describeWithEngine("podman", "podman image names", () => {
  it("runs an image known only by its docker.io name when given the short name", async () => {
    const qualified = "docker.io/patchloop-test/qualified:1";
    spawnSync("podman", ["tag", testImage("podman"), qualified]);
    try {
      // podman finds it by the short name itself, or patchloop qualifies it: either runs it.
      expect(["patchloop-test/qualified:1", qualified]).toContain(
        await ensureImage("podman", "patchloop-test/qualified:1", 30),
      );
      const env = await createContainerEnvironment({
        executable: "podman",
        image: "patchloop-test/qualified:1",
        network: "none",
      });
      expect((await env.exec("echo ok")).output).toBe("ok\n");
      await env.close();
    } finally {
      spawnSync("podman", ["rmi", qualified]);
    }
  });
});
