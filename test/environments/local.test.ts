import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalEnvironment, LOCAL_NOT_ISOLATED_WARNING } from "../../src/environments/local.js";
import { environmentBehaviourSuite, SUITE_CAPTURE_LIMIT } from "./behaviour-suite.js";

describe("local environment", () => {
  let dir = "";
  environmentBehaviourSuite({
    async create() {
      dir = await mkdtemp(join(tmpdir(), "patchloop-local-"));
      return createLocalEnvironment({
        cwd: dir,
        env: { PATCHLOOP_SUITE_VAR: "from-config" },
        captureLimit: SUITE_CAPTURE_LIMIT,
      });
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

  it("reports a working directory that does not exist", async () => {
    const env = createLocalEnvironment({ cwd: "/nonexistent/patchloop-dir" });
    const r = await env.exec("true");
    expect(r.returncode).toBe(127);
    expect(r.output).toMatch(/failed to start bash: .*ENOENT/);
  });
});
