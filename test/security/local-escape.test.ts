import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCgroup } from "../../src/environments/cgroup.js";
import { createLocalEnvironment, LOCAL_NOT_ISOLATED_WARNING } from "../../src/environments/local.js";
import { hostProcessesWith } from "../support/engines.js";
import { tempDir } from "../support/tmp.js";
import { waitFor } from "../support/wait-for.js";
import { bashCall, hostileConfig, hostileRun, makeWorkRepo, openSandbox } from "./support.js";

/**
 * What `local` cannot promise, said where a person reads it: a root command that writes itself into
 * the root control group and clears its environment leaves every mark local finds processes by, so
 * it outlives the task. No mark would hold against root, so the fix is the truth: the start-up
 * warning and docs/sandbox.md say it, and this test keeps them true (it runs the escape as root).
 */

const DOCS = readFileSync(join(import.meta.dirname, "..", "..", "docs", "sandbox.md"), "utf8");
const marker = `patchloop-root-escape-${randomBytes(6).toString("hex")}`;

/** Whether this process is root and may make control groups (the escape needs both). */
function rootWithCgroups(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = createCgroup("probe", { pidsLimit: null, memoryBytes: null });
  if (typeof probe === "string") return false;
  void probe.remove();
  return true;
}

afterEach(() => {
  for (const line of hostProcessesWith(marker)) process.kill(Number(line.split(":")[0]), "SIGKILL");
});

describe("local: processes that leave every mark", () => {
  it("the warning says which processes can outlive the task, and so does docs/sandbox.md", () => {
    const warnings: string[] = [];
    void createLocalEnvironment({ cwd: tempDir(), warn: (m) => warnings.push(m) }).close();
    expect(warnings[0]).toBe(LOCAL_NOT_ISOLATED_WARNING);
    expect(LOCAL_NOT_ISOLATED_WARNING).toBe(
      "environment 'local': commands run directly on this machine with your user's rights. Nothing is " +
        "isolated: the agent can read, change or delete any file you can and reach any network you can, and " +
        "a process it starts can outlive the task (local ends those in its control group or carrying its " +
        "environment id; not one run as root that leaves the group and clears its environment, nor one that " +
        "clears it where no group can be made). Use environment_class bwrap, docker or podman to contain it.",
    );
    const row = DOCS.split("\n").find((l) => l.startsWith("| leave processes running after the task"));
    expect(row?.split(" | ")[1]).toBe(
      "ended at the task's end while they stay in its cgroup or keep the environment id every command " +
        "carries; **can** as root (leave the cgroup, clear the environment) or where no cgroup can be made " +
        "(`env -i`): see below",
    );
    expect(DOCS).toContain(
      "as root, one that writes its\n  pid into another group (`/sys/fs/cgroup/cgroup.procs`)",
    );
  });

  it.runIf(rootWithCgroups())(
    "as root, a command that moves itself into the root cgroup and clears its environment outlives the task, as they say",
    async () => {
      const repo = makeWorkRepo(join(tempDir(), "repo"));
      const config = hostileConfig("bwrap", ["environment.environment_class=local"]);
      const env = await openSandbox(config, repo);
      const run = await hostileRun(config, env, [
        // A subshell moves itself into every hierarchy's root group, then starts a session of its
        // own with an empty environment: no cgroup, no environment id, reparented to init.
        bashCall(
          "(for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do echo $BASHPID > $f; done 2>/dev/null; " +
            `setsid env -i bash -c 'exec -a ${marker} sleep 600' > /dev/null 2>&1 < /dev/null &); sleep 0.5; echo started`,
        ),
      ]);
      expect(run.seen[0]).toContain("started");
      expect(hostProcessesWith(marker)).toHaveLength(1);
      await env.close();
      // what local ends, it ends within a second (the session test in sandbox-escape.test.ts)
      expect(await waitFor(() => hostProcessesWith(marker).length === 0, 2000)).toBe(false);
    },
  );
});
