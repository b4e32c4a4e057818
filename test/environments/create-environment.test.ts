import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvironmentConfig } from "../../src/config/schema.js";
import { createEnvironment } from "../../src/environments/index.js";
import { LOCAL_NOT_ISOLATED_WARNING } from "../../src/environments/local.js";
import { describeWithEngine, testImage } from "../support/engines.js";

function config(over: Partial<EnvironmentConfig>): EnvironmentConfig {
  return {
    environment_class: "local",
    cwd: "",
    timeout: 30,
    env: { FROM_CONFIG: "config-value", SHARED: "env wins" },
    forward_env: ["PATCHLOOP_FORWARDED", "SHARED", "PATCHLOOP_NOT_SET_ANYWHERE"],
    image: null,
    image_template: null,
    platform: null,
    executable: null,
    pull_timeout: 60,
    container_timeout: 600,
    run_args: [],
    memory: null,
    cpus: null,
    pids_limit: null,
    binds: [],
    network: "none",
    capture_limit: 1000,
    ...over,
  };
}

const PROBE =
  'echo "$FROM_CONFIG|$PATCHLOOP_FORWARDED|$SHARED|$(printenv PATCHLOOP_NOT_SET_ANYWHERE || echo unset)|$(pwd)"';

describe("createEnvironment", () => {
  let repo = "";
  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), "patchloop-create-"));
    process.env.PATCHLOOP_FORWARDED = "forwarded-value";
    process.env.SHARED = "host";
  });
  afterAll(async () => {
    delete process.env.PATCHLOOP_FORWARDED;
    delete process.env.SHARED;
    await rm(repo, { recursive: true, force: true });
  });

  it("local: config env and forwarded variables, repo as cwd, capture limit, the warning", async () => {
    const warnings: string[] = [];
    const env = await createEnvironment(config({}), { workFolder: repo, warn: (m) => warnings.push(m) });
    expect(env.kind).toBe("local");
    expect((await env.exec(PROBE)).output).toBe(`config-value|forwarded-value|env wins|unset|${repo}\n`);
    expect((await env.exec("yes | head -c 100000")).truncated).toBe(true);
    expect(warnings).toEqual([LOCAL_NOT_ISOLATED_WARNING]);
    await env.close();
  });

  const BYTECODE = 'echo "[$(printenv PYTHONDONTWRITEBYTECODE || echo unset)]"';
  const writesBytecode = config({ env: { PYTHONDONTWRITEBYTECODE: "" } });

  it("local: PYTHONDONTWRITEBYTECODE=1 whatever the host has, unless environment.env sets it (here to empty)", async () => {
    const host = process.env.PYTHONDONTWRITEBYTECODE;
    process.env.PYTHONDONTWRITEBYTECODE = "";
    try {
      const env = await createEnvironment(config({}), { workFolder: repo, warn: () => {} });
      expect((await env.exec(BYTECODE)).output).toBe("[1]\n");
      await env.close();
      process.env.PYTHONDONTWRITEBYTECODE = "1";
      const off = await createEnvironment(writesBytecode, { workFolder: repo, warn: () => {} });
      expect((await off.exec(BYTECODE)).output).toBe("[]\n");
      await off.close();
    } finally {
      if (host === undefined) delete process.env.PYTHONDONTWRITEBYTECODE;
      else process.env.PYTHONDONTWRITEBYTECODE = host;
    }
  });

  it("says what is missing", async () => {
    await expect(createEnvironment(config({}))).rejects.toThrow(
      "environment local needs a work folder (the task's files on this machine); got none. " +
        "Pass --repo DIR (patchloop run) or --repos-dir DIR (swebench, eval, localize).",
    );
    await expect(createEnvironment(config({ environment_class: "docker" }))).rejects.toThrow(
      "environment docker needs an image (environment.image or --image); got none",
    );
    await expect(
      createEnvironment(config({ environment_class: "bwrap", network: "bridge" }), { workFolder: repo }),
    ).rejects.toThrow('environment.network for bwrap must be "none" or "host", got "bridge"');
  });

  describeWithEngine("bwrap", "bwrap", () => {
    it("bwrap: same variables, the repository at /testbed (or at environment.cwd) whatever its host folder", async () => {
      await writeFile(join(repo, "marker.txt"), "host file\n");
      const env = await createEnvironment(config({ environment_class: "bwrap" }), { workFolder: repo });
      expect(env.kind).toBe("bwrap");
      expect(env.cwd).toBe("/testbed");
      expect((await env.exec(PROBE)).output).toBe("config-value|forwarded-value|env wins|unset|/testbed\n");
      expect((await env.exec("cat /testbed/marker.txt")).output).toBe("host file\n");
      await env.close();
      const at = await createEnvironment(config({ environment_class: "bwrap", cwd: "/work/repo" }), {
        workFolder: repo,
      });
      expect((await at.exec("pwd; cat marker.txt")).output).toBe("/work/repo\nhost file\n");
      await at.close();
    });

    it("bwrap: PYTHONDONTWRITEBYTECODE=1 unless environment.env sets it", async () => {
      const env = await createEnvironment(config({ environment_class: "bwrap" }), { workFolder: repo });
      expect((await env.exec(BYTECODE)).output).toBe("[1]\n");
      await env.close();
      const off = await createEnvironment(
        { ...writesBytecode, environment_class: "bwrap" },
        { workFolder: repo },
      );
      expect((await off.exec(BYTECODE)).output).toBe("[]\n");
      await off.close();
    });

    it("bwrap: refuses a malformed bind and a missing bind source", async () => {
      await expect(
        createEnvironment(config({ environment_class: "bwrap", binds: ["relative/path"] }), {
          workFolder: repo,
        }),
      ).rejects.toThrow('environment.binds entry "relative/path": both paths must be absolute');
      await expect(
        createEnvironment(config({ environment_class: "bwrap", binds: ["/a:/b:/c:rw"] }), {
          workFolder: repo,
        }),
      ).rejects.toThrow('environment.binds entry "/a:/b:/c:rw" is not HOST[:SANDBOX][:ro|rw]');
      await expect(
        createEnvironment(config({ environment_class: "bwrap", binds: ["/nonexistent/patchloop-bind"] }), {
          workFolder: repo,
        }),
      ).rejects.toThrow("environment.binds: /nonexistent/patchloop-bind does not exist on this machine");
    });
  });

  for (const engine of ["docker", "podman"] as const) {
    describeWithEngine(engine, engine, () => {
      it(`${engine}: config and forwarded variables, configured cwd`, async () => {
        const env = await createEnvironment(
          config({ environment_class: engine, image: testImage(engine), cwd: "/var" }),
          { runId: "create-test" },
        );
        expect(env.kind).toBe(engine);
        expect(env.cwd).toBe("/var");
        expect((await env.exec(PROBE)).output).toBe("config-value|forwarded-value|env wins|unset|/var\n");
        expect((await env.exec(BYTECODE)).output).toBe("[1]\n");
        await env.close();
      });

      it(`${engine}: PYTHONDONTWRITEBYTECODE as environment.env sets it, also when forwarded from the host`, async () => {
        const image = testImage(engine);
        const off = await createEnvironment(
          { ...writesBytecode, environment_class: engine, image },
          { runId: "create-test" },
        );
        expect((await off.exec(BYTECODE)).output).toBe("[]\n");
        await off.close();
        const host = process.env.PYTHONDONTWRITEBYTECODE;
        process.env.PYTHONDONTWRITEBYTECODE = "from-host";
        try {
          const forwarded = await createEnvironment(
            config({ environment_class: engine, image, forward_env: ["PYTHONDONTWRITEBYTECODE"] }),
            { runId: "create-test" },
          );
          expect((await forwarded.exec(BYTECODE)).output).toBe("[from-host]\n");
          await forwarded.close();
        } finally {
          if (host === undefined) delete process.env.PYTHONDONTWRITEBYTECODE;
          else process.env.PYTHONDONTWRITEBYTECODE = host;
        }
      });
    });
  }
});
