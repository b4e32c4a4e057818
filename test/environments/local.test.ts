import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalEnvironment, LOCAL_NOT_ISOLATED_WARNING } from "../../src/environments/local.js";
import { waitFor } from "../support/wait-for.js";
import { environmentBehaviourSuite, SUITE_CAPTURE_LIMIT } from "./behaviour-suite.js";

describe("local environment", () => {
  let dir = "";
  environmentBehaviourSuite({
    async create() {
      dir = await mkdtemp(join(tmpdir(), "patchloop-local-"));
      // made where the host does not set PYTHONDONTWRITEBYTECODE: the environment must set it itself
      const host = process.env.PYTHONDONTWRITEBYTECODE;
      delete process.env.PYTHONDONTWRITEBYTECODE;
      try {
        return createLocalEnvironment({
          cwd: dir,
          env: { PATCHLOOP_SUITE_VAR: "from-config" },
          captureLimit: SUITE_CAPTURE_LIMIT,
        });
      } finally {
        if (host !== undefined) process.env.PYTHONDONTWRITEBYTECODE = host;
      }
    },
    scratchDir: () => dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });

  it("warns once per callback that nothing is isolated", async () => {
    const seen: string[] = [];
    const warn = (m: string) => seen.push(m);
    const a = createLocalEnvironment({ cwd: tmpdir(), warn });
    const b = createLocalEnvironment({ cwd: tmpdir(), warn });
    expect(seen).toEqual([LOCAL_NOT_ISOLATED_WARNING]);
    expect(LOCAL_NOT_ISOLATED_WARNING).toContain("Nothing is isolated");
    const other: string[] = [];
    const c = createLocalEnvironment({ cwd: tmpdir(), warn: (m) => other.push(m) });
    expect(other).toHaveLength(1);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it("inherits the host's variables (nothing is isolated)", async () => {
    process.env.PATCHLOOP_LOCAL_HOST_VAR = "host-value";
    const env = createLocalEnvironment({ cwd: tmpdir() });
    expect((await env.exec("echo $PATCHLOOP_LOCAL_HOST_VAR")).output).toBe("host-value\n");
    delete process.env.PATCHLOOP_LOCAL_HOST_VAR;
    await env.close();
  });

  it("keeps the user's ~/.bashrc out of commands that get stdin (bash sees a socket there)", async () => {
    const home = await mkdtemp(join(tmpdir(), "patchloop-home-"));
    await writeFile(join(home, ".bashrc"), "echo RC-WAS-READ\n");
    const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
    process.env.HOME = home;
    delete process.env.SHLVL;
    try {
      const env = createLocalEnvironment({ cwd: home });
      expect((await env.exec("cat", { stdin: "only this\n" })).output).toBe("only this\n");
      const shell = env.spawn!(["bash"]);
      let text = "";
      shell.onData((c) => {
        text += c;
      });
      shell.write("echo shell-ok\n");
      await waitFor(() => text.includes("shell-ok"), 5000);
      expect(text).toBe("shell-ok\n");
      shell.kill();
      await env.close();
    } finally {
      process.env.HOME = saved.HOME;
      if (saved.SHLVL !== undefined) process.env.SHLVL = saved.SHLVL;
      await rm(home, { recursive: true, force: true });
    }
  });

  it("reports a working directory that does not exist", async () => {
    const env = createLocalEnvironment({ cwd: "/nonexistent/patchloop-dir" });
    const r = await env.exec("true");
    expect(r.returncode).toBe(127);
    expect(r.output).toMatch(/failed to start bash: .*ENOENT/);
  });
});
