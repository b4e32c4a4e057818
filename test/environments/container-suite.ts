import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createContainerEnvironment } from "../../src/environments/container.js";
import { liveContainers } from "../../src/environments/container-registry.js";
import { testImage } from "../support/engines.js";
import { waitFor } from "../support/wait-for.js";
import { environmentBehaviourSuite, SUITE_CAPTURE_LIMIT } from "./behaviour-suite.js";

function cli(engine: string, args: string[]): string {
  const r = spawnSync(engine, args, { encoding: "utf8", timeout: 60_000 });
  return `${r.stdout}${r.stderr}`.trim();
}

/** The behaviour suite plus what only containers do, for `docker` or `podman`. */
export function containerTests(engine: "docker" | "podman"): void {
  let dir = "";
  environmentBehaviourSuite({
    async create() {
      dir = await mkdtemp(join(tmpdir(), `patchloop-${engine}-repo-`));
      return createContainerEnvironment({
        executable: engine,
        image: testImage(engine),
        repoDir: dir,
        env: { PATCHLOOP_SUITE_VAR: "from-config" },
        captureLimit: SUITE_CAPTURE_LIMIT,
        network: "none",
        runId: "suite",
      });
    },
    scratchDir: () => "/var/tmp/patchloop-scratch",
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });

  it("applies limits, network, labels; runs in the image's workdir; close removes it", async () => {
    const env = await createContainerEnvironment({
      executable: engine,
      image: testImage(engine),
      network: "none",
      memory: "256m",
      pidsLimit: 64,
      cpus: 1,
      runId: "limits-test",
    });
    expect(env.kind).toBe(engine);
    expect(env.cwd).toBe("/");
    // cgroup v2 files, else v1 (these machines run v1).
    const r = await env.exec(
      "cd /sys/fs/cgroup; cat memory.max 2>/dev/null || cat memory/memory.limit_in_bytes; " +
        "cat pids.max 2>/dev/null || cat pids/pids.max; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
    );
    expect(r.output).toBe("268435456\n64\nlo\n");
    const [name] = liveContainers().filter((n) => n.startsWith("patchloop-limits-test-"));
    expect(name).toBeDefined();
    const labels = cli(engine, ["container", "inspect", "--format", "{{json .Config.Labels}}", name]);
    expect(JSON.parse(labels)).toMatchObject({ patchloop: "1", "patchloop.run": "limits-test" });
    expect(cli(engine, ["container", "inspect", "--format", "{{.HostConfig.NanoCpus}}", name])).toBe(
      "1000000000",
    );
    await env.close();
    expect(liveContainers()).not.toContain(name);
    expect(cli(engine, ["ps", "-a", "-q", "--filter", `name=${name}`])).toBe("");
    expect((await env.exec("true")).returncode).toBe(-1);
  });

  it("runs commands in the image's testbed conda env (BASH_ENV)", async () => {
    const env = await createContainerEnvironment({
      executable: engine,
      image: testImage(engine),
      network: "none",
    });
    // A stand-in for /opt/miniconda3 with the shape SWE-bench images have: bin/activate defines `conda`.
    await env.writeFile(
      "/opt/miniconda3/bin/activate",
      'conda() { [ "$1" = activate ] && export CONDA_DEFAULT_ENV="$2" PATH="/opt/miniconda3/envs/$2/bin:$PATH"; }\n',
    );
    await env.writeFile("/opt/miniconda3/envs/testbed/bin/python", "#!/bin/sh\necho testbed-python\n");
    await env.exec("chmod +x /opt/miniconda3/envs/testbed/bin/python");
    expect((await env.exec('python; echo "$CONDA_DEFAULT_ENV"')).output).toBe("testbed-python\ntestbed\n");
    const shell = env.spawn!(["bash"]);
    let text = "";
    shell.onData((c) => {
      text += c;
    });
    shell.write("python\n");
    await waitFor(() => text.includes("testbed-python"), 10_000);
    expect(text).toBe("testbed-python\n");
    shell.kill();
    await env.close();
  });

  it("writes through to the mounted repository", async () => {
    const repo = await mkdtemp(join(tmpdir(), `patchloop-${engine}-mount-`));
    const env = await createContainerEnvironment({
      executable: engine,
      image: testImage(engine),
      repoDir: repo,
      network: "none",
    });
    expect(env.cwd).toBe(repo);
    await env.exec("echo inside > made-inside.txt");
    expect(await readFile(join(repo, "made-inside.txt"), "utf8")).toBe("inside\n");
    await env.close();
    await rm(repo, { recursive: true, force: true });
  });

  it("fails to start with a readable error and leaves no container", async () => {
    const missing = "localhost/patchloop-test/no-such-image:never";
    await expect(
      createContainerEnvironment({
        executable: engine,
        image: missing,
        pullTimeout: 60,
        runId: "missing-image",
      }),
    ).rejects.toThrow(/patchloop-test\/no-such-image:never is not present .* could not be pulled/s);
    expect(liveContainers().filter((n) => n.includes("missing-image"))).toEqual([]);
  });
}
