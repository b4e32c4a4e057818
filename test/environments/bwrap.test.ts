import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createBwrapEnvironment } from "../../src/environments/bwrap.js";
import { describeWithEngine } from "../support/engines.js";
import { environmentBehaviourSuite, SUITE_CAPTURE_LIMIT } from "./behaviour-suite.js";

describeWithEngine("bwrap", "bwrap environment", () => {
  let dir = "";
  environmentBehaviourSuite({
    async create() {
      dir = await mkdtemp(join(tmpdir(), "patchloop-bwrap-repo-"));
      return createBwrapEnvironment({
        repoDir: dir,
        env: { PATCHLOOP_SUITE_VAR: "from-config" },
        captureLimit: SUITE_CAPTURE_LIMIT,
      });
    },
    scratchDir: () => dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });

  it("writes the repository, nothing else of the host, and keeps its own /tmp", async () => {
    const repo = await mkdtemp(join(tmpdir(), "patchloop-bwrap-iso-"));
    const env = createBwrapEnvironment({ repoDir: repo });
    const r = await env.exec(
      "echo repo > file.txt && echo tmp > /tmp/private.txt && (touch /etc/patchloop-x 2>&1; echo rc=$?)",
    );
    expect(r.output).toMatch(/Read-only file system\nrc=1\n$/);
    expect(await readFile(join(repo, "file.txt"), "utf8")).toBe("repo\n");
    await expect(stat("/tmp/private.txt")).rejects.toThrow(/ENOENT/);
    expect((await env.exec("cat /tmp/private.txt")).output).toBe("tmp\n");
    await expect(env.writeFile("/etc/patchloop-x", "x")).rejects.toThrow(/read-only there/);
    expect((await env.readFile("/etc/hostname")).length).toBeGreaterThan(0);
    await env.close();
    await rm(repo, { recursive: true, force: true });
  });

  it("has its own HOME at /tmp/home, writable, and no /root or /home, with HOME=/root outside", async () => {
    const before = process.env.HOME;
    process.env.HOME = "/root";
    const repo = await mkdtemp(join(tmpdir(), "patchloop-bwrap-home-"));
    try {
      const env = createBwrapEnvironment({ repoDir: repo });
      const look =
        'pwd; echo "HOME=$HOME"; for d in /root /home; do test -e $d && echo "$d is there" || echo "no $d"; done; ' +
        "echo x > ~/.probe && cat /tmp/home/.probe && ls -A ~";
      expect((await env.exec(look)).output).toBe("/testbed\nHOME=/tmp/home\nno /root\nno /home\nx\n.probe\n");
      expect(env.cwd).toBe("/testbed");
      // the file calls see the same HOME
      await env.writeFile("/tmp/home/.gitconfig", "[user]\n\tname = a\n");
      expect((await env.exec("git config --global user.name")).output).toBe("a\n");
      await env.close();
    } finally {
      process.env.HOME = before;
      await rm(repo, { recursive: true, force: true });
    }
  });

  it("hides the host's variables and has no network unless allowed", async () => {
    process.env.PATCHLOOP_SECRET_FOR_TEST = "secret";
    const env = createBwrapEnvironment({ repoDir: tmpdir() });
    expect((await env.exec('echo "[$PATCHLOOP_SECRET_FOR_TEST]"')).output).toBe("[]\n");
    const links = "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '";
    expect((await env.exec(links)).output).toBe("lo ");
    await env.close();
    const open = createBwrapEnvironment({ repoDir: tmpdir(), network: "host" });
    expect((await open.exec(links)).output).not.toBe("lo ");
    await open.close();
    delete process.env.PATCHLOOP_SECRET_FOR_TEST;
  });

  it("starts every command from one helper in one sandbox, and a timeout kills the command's processes there", async () => {
    const repo = await mkdtemp(join(tmpdir(), "patchloop-bwrap-helper-"));
    const env = createBwrapEnvironment({ repoDir: repo });
    const parent = (await env.exec("echo $PPID")).output;
    expect((await env.exec("echo $PPID")).output).toBe(parent);
    const slow = await env.exec("echo begun; sleep 30 & sleep 40", { timeout: 0.5 });
    expect(slow).toEqual({ output: "begun\n", returncode: -1, timedOut: true, truncated: false });
    // Only the helper (and bwrap's init) is left in the sandbox besides this ps.
    const ps = await env.exec("ps -eo comm=");
    expect(ps.output.trim().split("\n").sort()).toEqual(["bash", "bwrap", "ps"]);
    await env.close();
    await rm(repo, { recursive: true, force: true });
  });
});
