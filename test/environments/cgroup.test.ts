import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBwrapEnvironment } from "../../src/environments/bwrap.js";
import { createCgroup, parseMemory } from "../../src/environments/cgroup.js";
import { secretPathsUnder } from "../../src/environments/host-secrets.js";
import { tempDir } from "../support/tmp.js";
import { waitFor } from "../support/wait-for.js";

describe("memory sizes", () => {
  it("reads docker's units and refuses the rest", () => {
    expect(parseMemory("8g")).toBe(8 * 1024 ** 3);
    expect(parseMemory("512m")).toBe(512 * 1024 ** 2);
    expect(parseMemory("1.5G")).toBe(1.5 * 1024 ** 3);
    expect(parseMemory("64k")).toBe(65536);
    expect(parseMemory("1024")).toBe(1024);
    expect(parseMemory("2gb")).toBe(2 * 1024 ** 3);
    expect(parseMemory("lots")).toBeNull();
    expect(parseMemory("0")).toBeNull();
    expect(() => createBwrapEnvironment({ repoDir: tempDir(), memory: "lots" })).toThrow(
      'environment.memory "lots" is not a size such as 8g or 512m',
    );
  });
});

const made = createCgroup("probe", { pidsLimit: 10, memoryBytes: null });
const cgroups = typeof made !== "string";
if (typeof made !== "string") await made.remove();

describe.skipIf(!cgroups)(`a control group (${typeof made === "string" ? made : made.where})`, () => {
  it("caps the processes of what joins it, lists every member, and ends them all", async () => {
    const group = createCgroup("test", { pidsLimit: 8, memoryBytes: 64 * 1024 ** 2 });
    if (typeof group === "string") throw new Error(group);
    // Forks 20 sleeping children (bash would retry a refused fork for seconds), says how many it got.
    const forks =
      "import os, time\nok = 0\nfor _ in range(20):\n  try:\n    if os.fork() == 0:\n      time.sleep(600); os._exit(0)\n    ok += 1\n  except OSError:\n    pass\nprint('started', ok, flush=True)\ntime.sleep(600)";
    const [exe, ...args] = group.joinArgv(["/usr/bin/python3", "-c", forks]);
    const child = spawn(exe, args, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    // The whole line: a pipe may hand the output over in more than one chunk.
    expect(await waitFor(() => out.includes("\n"), 30_000)).toBe(true);
    // python and 7 children: the eighth fork and later ones were refused.
    expect(out).toBe("started 7\n");
    expect(group.members().length).toBe(8);
    await group.remove();
    expect(group.members()).toEqual([]);
    expect(await waitFor(() => child.exitCode !== null || child.signalCode !== null, 5000)).toBe(true);
  });
});

describe("host secrets under a folder shown to a sandbox", () => {
  it("lists what other users cannot read, sockets and named secrets; follows no link", async () => {
    const etc = tempDir();
    writeFileSync(join(etc, "passwd"), "root:x:0:0\n");
    writeFileSync(join(etc, "shadow"), "root:*:1\n");
    chmodSync(join(etc, "shadow"), 0o644); // named: hidden whatever its mode
    mkdirSync(join(etc, "ssh"));
    writeFileSync(join(etc, "ssh", "ssh_host_ed25519_key"), "KEY");
    chmodSync(join(etc, "ssh", "ssh_host_ed25519_key"), 0o600);
    writeFileSync(join(etc, "ssh", "ssh_host_ed25519_key.pub"), "PUB");
    mkdirSync(join(etc, "private"), { mode: 0o700 });
    const server = createServer();
    await new Promise<void>((r) => server.listen(join(etc, "agent.sock"), r));
    try {
      expect(secretPathsUnder(etc)).toEqual({
        files: [join(etc, "agent.sock"), join(etc, "shadow"), join(etc, "ssh", "ssh_host_ed25519_key")],
        dirs: [join(etc, "private")],
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
