import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { EnvironmentConfig } from "../../src/config/schema.js";
import { instanceCwd, openInstance } from "../../src/instance/open.js";
import { describeWithEngine, testImage } from "../support/engines.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";

const environmentOf = (...args: string[]): EnvironmentConfig =>
  loadConfig({ configArgs: ["swebench", "model.model_name=scripted", ...args], defaultConfig: "swebench" })
    .config.environment;

let f: FixtureInstances;
let root = "";
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "patchloop-open-"));
  f = buildFixtureInstances(root, { count: 1, repos: 1 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HEAD_AND_PWD = "git rev-parse HEAD; pwd";

describe("openInstance on a checkout", () => {
  it("agent, local: the checkout at the stable path, used in place, at the base commit", async () => {
    const stableRoot = tempDir();
    const e = environmentOf("environment.environment_class=local", "environment.cwd=/ignored/locally");
    const opened = await openInstance(e, f.rows[0], "agent", {
      reposDir: f.reposDir,
      stableRoot,
      warn: () => {},
    });
    const stable = join(stableRoot, f.rows[0].instance_id);
    try {
      expect(opened).toMatchObject({ repoDir: stable, hostDir: stable, baseCommit: f.rows[0].base_commit });
      expect(opened.env.cwd).toBe(stable);
      expect((await opened.env.exec(HEAD_AND_PWD)).output).toBe(`${f.rows[0].base_commit}\n${stable}\n`);
    } finally {
      await opened.close();
    }
    expect(existsSync(stable)).toBe(false);
  });

  describeWithEngine("bwrap", "bwrap", () => {
    it("agent, bwrap: the checkout shown at environment.cwd (else /testbed), its host folder said", async () => {
      const workRoot = tempDir();
      for (const [args, inside] of [
        [[], "/testbed"],
        [["environment.cwd=/work/repo"], "/work/repo"],
      ] as const) {
        const e = environmentOf("environment.environment_class=bwrap", ...args);
        const opened = await openInstance(e, f.rows[0], "agent", { reposDir: f.reposDir, workRoot });
        try {
          expect(opened.repoDir).toBe(inside);
          expect(opened.hostDir?.startsWith(workRoot)).toBe(true);
          expect((await opened.env.exec(HEAD_AND_PWD)).output).toBe(`${f.rows[0].base_commit}\n${inside}\n`);
        } finally {
          await opened.close();
        }
        expect(existsSync(opened.hostDir as string)).toBe(false);
      }
    });

    it("grade, bwrap: always /testbed (the eval script's path), scratch in the sandbox's /tmp", async () => {
      const e = environmentOf("environment.environment_class=bwrap", "environment.cwd=/work/repo");
      const opened = await openInstance(e, f.rows[0], "grade", { reposDir: f.reposDir, workRoot: tempDir() });
      try {
        expect(opened).toMatchObject({
          kind: "bwrap",
          repoDir: "/testbed",
          scratchDir: "/tmp",
          hostPython: true,
        });
        expect((await opened.env.exec(HEAD_AND_PWD)).output).toBe(`${f.rows[0].base_commit}\n/testbed\n`);
      } finally {
        await opened.close();
      }
    });
  });

  it("grade, local: a folder of its own with scratch beside the work tree; no per-command limit", async () => {
    const workRoot = tempDir();
    const e = environmentOf("environment.environment_class=local", "environment.timeout=1");
    const opened = await openInstance(e, f.rows[0], "grade", { reposDir: f.reposDir, workRoot });
    const tree = opened.repoDir;
    try {
      expect(tree).toMatch(
        new RegExp(`^${workRoot}/patchloop-eval-${f.rows[0].instance_id}-[^/]+/[^/]+/repo$`),
      );
      expect(opened).toMatchObject({
        kind: "local",
        hostDir: tree,
        scratchDir: join(dirname(tree), "scratch"),
        hostPython: true,
        activate: [],
        safeDirectory: false,
        installByDefault: false,
      });
      expect(existsSync(opened.scratchDir)).toBe(true);
      // environment.timeout=1 does not stop a grading command (each gives its own limit)
      expect(await opened.env.exec("sleep 1.5; echo done")).toMatchObject({
        output: "done\n",
        timedOut: false,
      });
    } finally {
      await opened.close();
    }
    expect(existsSync(dirname(dirname(tree)))).toBe(false);
  });

  it("read with reposDir: the checkout alone, read on this machine (no environment), whatever the class", async () => {
    const workRoot = tempDir();
    const e = environmentOf("environment.environment_class=docker", "environment.image=never-started:1");
    const opened = await openInstance(e, f.rows[0], "read", { reposDir: f.reposDir, workRoot });
    try {
      expect(opened.env).toBeUndefined();
      expect(opened.hostDir).toBe(opened.repoDir);
      expect(existsSync(join(opened.repoDir, "tests", "test_op1.py"))).toBe(true);
    } finally {
      await opened.close();
    }
    expect(existsSync(opened.repoDir)).toBe(false);
  });

  it("local and bwrap without reposDir: says what to pass", async () => {
    for (const kind of ["local", "bwrap"]) {
      await expect(
        openInstance(environmentOf(`environment.environment_class=${kind}`), f.rows[0], "read", {}),
      ).rejects.toThrow(
        `environment ${kind} needs --repos-dir DIR: a folder with one git clone per repository, named owner__repo`,
      );
    }
  });
});

describe("instanceCwd", () => {
  it("is where the agent finds the repository", () => {
    expect(instanceCwd(environmentOf("environment.environment_class=bwrap"), "a__b-1")).toBe("/testbed");
    expect(
      instanceCwd(environmentOf("environment.environment_class=docker", "environment.cwd=/src"), "a__b-1"),
    ).toBe("/src");
    expect(instanceCwd(environmentOf("environment.environment_class=local"), "a/b 1")).toBe(
      join(tmpdir(), "patchloop", "a_b_1"),
    );
  });
});

describeWithEngine("docker", "openInstance on docker", () => {
  it("agent and read: the image's repository at environment.cwd; grade: at /testbed, with the image's facts", async () => {
    const e = environmentOf(
      "environment.environment_class=docker",
      `environment.image=${testImage("docker")}`,
      "environment.cwd=/var",
    );
    const agent = await openInstance(e, f.rows[0], "agent", { runId: "open-test" });
    try {
      expect(agent).toMatchObject({ repoDir: "/var" });
      expect(agent.hostDir).toBeUndefined();
      expect(agent.baseCommit).toBeUndefined();
      expect((await agent.env.exec("pwd")).output).toBe("/var\n");
    } finally {
      await agent.close();
    }
    const read = await openInstance(e, f.rows[0], "read", { runId: "open-test" });
    try {
      expect(read.repoDir).toBe("/var");
      expect((await read.env?.exec("pwd"))?.output).toBe("/var\n");
    } finally {
      await read.close();
    }
    const grade = await openInstance(e, f.rows[0], "grade", { runId: "open-test", testTimeout: 60 });
    try {
      expect(grade).toMatchObject({
        kind: "docker",
        image: testImage("docker"),
        repoDir: "/testbed",
        scratchDir: "/tmp",
        hostPython: false,
        safeDirectory: true,
        installByDefault: true,
      });
      expect(grade.env.cwd).toBe("/testbed");
    } finally {
      await grade.close();
    }
  });
});
