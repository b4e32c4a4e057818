import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { leftBehind, ownerAlive, ownerLabel, parseOwner, pidAlive } from "../../src/util/process-alive.js";
import { endProcesses } from "../../src/util/process-set.js";
import { runProcess } from "../../src/util/run-process.js";
import { tempDir } from "../support/tmp.js";

const started: ChildProcess[] = [];
/** A `sleep` this test owns (killed afterwards whatever happened). */
function sleeper(): number {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  started.push(child);
  return child.pid as number;
}
afterEach(() => {
  for (const c of started.splice(0)) c.kill("SIGKILL");
});

/** A pid that no process has now: a child that has exited and been waited for. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((r) => child.on("close", r));
  return child.pid as number;
}

describe("runProcess", () => {
  it("gives stdout as bytes, stderr as text, the exit status, and feeds input", async () => {
    const r = await runProcess("sh", ["-c", "cat; printf '\\377' ; echo oops >&2; exit 3"], {
      input: "in\n",
    });
    expect(r).toMatchObject({ code: 3, stderr: "oops\n", timedOut: false });
    expect(r.stdout).toEqual(Buffer.from([0x69, 0x6e, 0x0a, 0xff]));
    expect(r.overflowed).toBeUndefined();
  });

  it("kills at the time limit and says so, without waiting for what the program started", async () => {
    const t0 = Date.now();
    // the shell's `sleep` (its child) still holds the output pipes when the shell is killed
    const r = await runProcess("sh", ["-c", "echo early; sleep 3; echo late"], { timeout: 0.3 });
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(r).toMatchObject({ code: -1, timedOut: true });
    expect(r.stdout.toString()).toBe("early\n");
  });

  it("kills past the stdout cap, keeping exactly the cap", async () => {
    const r = await runProcess("sh", ["-c", "exec yes"], { maxStdout: 1000 });
    expect(r).toMatchObject({ code: -1, overflowed: true, timedOut: false });
    expect(r.stdout.toString()).toBe("y\n".repeat(500));
  });

  it("keeps the last maxStderr bytes of stderr", async () => {
    const r = await runProcess("sh", ["-c", "head -c 5000 /dev/zero >&2; echo end >&2"], { maxStderr: 100 });
    expect(r).toMatchObject({ code: 0, stderr: `${"\0".repeat(96)}end\n` });
  });

  it("never rejects: a missing program is 127, not-found, with the reason", async () => {
    const r = await runProcess("/nonexistent/program", ["x"]);
    expect(r).toMatchObject({ code: 127, notStarted: "not-found", timedOut: false });
    expect(r.stderr).toMatch(
      /^\/nonexistent\/program could not be started: spawn \/nonexistent\/program ENOENT/,
    );
  });
});

describe("endProcesses", () => {
  it("signals, pauses and looks again until the set is gone", async () => {
    const pids = [sleeper(), sleeper()];
    let rounds = 0;
    const left = await endProcesses({
      // a killed child of this process is gone once Node has reaped it (during a pause)
      find: () => {
        rounds++;
        return pids.filter(pidAlive);
      },
      pauseMs: 20,
      withinMs: 5000,
    });
    expect(left).toEqual([]);
    expect(rounds).toBeGreaterThanOrEqual(2);
  });

  it("with signal null only watches, and gives back what is left when the rounds run out", async () => {
    const pid = sleeper();
    const left = await endProcesses({ find: () => [pid], signal: null, pauseMs: 1, rounds: 3 });
    expect(left).toEqual([pid]);
    expect(pidAlive(pid)).toBe(true);
  });
});

describe("the owner rule", () => {
  it("this process is alive; a dead pid, another start time or a malformed label are not; another host is said", async () => {
    expect(ownerAlive(ownerLabel())).toBe(true);
    const [host, pid] = ownerLabel().split(":");
    expect(ownerAlive(`${host}:${pid}:1`)).toBe(false);
    expect(ownerAlive(`${host}:${pid}:?`)).toBe(true);
    expect(ownerAlive(`${host}:${await deadPid()}:?`)).toBe(false);
    expect(ownerAlive(`${host}:${pid}`)).toBe(false);
    expect(ownerAlive("garbage")).toBe("other-host");
    expect(ownerAlive(`other-${hostname()}:${pid}:?`)).toBe("other-host");
    expect(parseOwner(`${host}:abc:?`)).toEqual({ host, pid: 0, start: undefined });
  });

  it("leftBehind names the folders of dead owners only (not this process's, not a live one's)", async () => {
    const dir = tempDir();
    const dead = await deadPid();
    const live = sleeper();
    for (const name of [`p-${dead}-a`, `p-${process.pid}-b`, `p-${live}-c`, "p-x-d", "other-1-e"])
      mkdirSync(join(dir, name));
    expect(leftBehind(dir, "p-")).toEqual([`p-${dead}-a`]);
    expect(leftBehind(join(dir, "missing"), "p-")).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
