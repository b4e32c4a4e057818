import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runEnvGc } from "../../src/cli/env-gc.js";
import { gcContainers } from "../../src/environments/gc.js";
import { ownerLabel } from "../../src/util/process-alive.js";
import { describeWithEngine, testImage } from "../support/engines.js";
import { waitFor } from "../support/wait-for.js";

const HOLDER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "hold-container.mjs");

function cli(engine: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(engine, args, { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

/** Runs the holder, waits for its container, sends `signal`, returns what it printed and its exit. */
async function holdThenSignal(engine: string, runId: string, signal: NodeJS.Signals, mode = "") {
  const child = spawn(process.execPath, [HOLDER, engine, testImage(engine as "docker"), runId, mode], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, sig) => resolve({ code, signal: sig })),
  );
  await waitFor(() => out.includes("ready "), 60_000);
  const name = /ready (\S+)/.exec(out)?.[1] ?? "";
  expect(name, out).toMatch(new RegExp(`^patchloop-${runId}-[0-9a-f]{8}$`));
  expect(cli(engine, ["ps", "-q", "--filter", `name=${name}`]).out).not.toBe("");
  child.kill(signal);
  return { name, exit: await exited, output: () => out };
}

function containerGone(engine: string, nameOrId: string): boolean {
  return cli(engine, ["container", "inspect", nameOrId]).code !== 0;
}

function cleanupTests(engine: "docker" | "podman"): void {
  it("removes the container when the runner gets SIGTERM, then dies of it", async () => {
    const { name, exit } = await holdThenSignal(engine, "sigterm", "SIGTERM");
    expect(exit).toEqual({ code: null, signal: "SIGTERM" });
    expect(containerGone(engine, name)).toBe(true);
  });

  it("removes the container at exit when the program handles SIGTERM itself", async () => {
    const { name, exit, output } = await holdThenSignal(engine, "ownhandler", "SIGTERM", "own-handler");
    expect(exit).toEqual({ code: 3, signal: null });
    expect(output()).toContain("own-handler live=1");
    expect(containerGone(engine, name)).toBe(true);
  });

  it("patchloop env gc removes what a SIGKILLed runner left", async () => {
    const runId = `killed${process.pid}`;
    const { name, exit } = await holdThenSignal(engine, runId, "SIGKILL");
    expect(exit.signal).toBe("SIGKILL");
    expect(containerGone(engine, name)).toBe(false);
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void out.push(`ERR ${t}`) };
    expect(await runEnvGc({ executable: engine, runId }, io)).toBe(0);
    expect(out.join("")).toBe(`${engine}: removed ${name} (run ${runId})\n`);
    expect(containerGone(engine, name)).toBe(true);
    out.length = 0;
    expect(await runEnvGc({ executable: engine, runId }, io)).toBe(0);
    expect(out.join("")).toBe(`${engine}: no patchloop containers\n`);
  });

  it("env gc removes a leftover of a dead run and keeps one of a live run", async () => {
    const image = testImage(engine);
    const runId = `gc-test-${process.pid}-${Date.now()}`;
    const base = [
      "run",
      "-d",
      "--network",
      "none",
      "--label",
      "patchloop=1",
      "--label",
      `patchloop.run=${runId}`,
    ];
    if (engine === "podman") base.push("--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768");
    const run = (owner: string) =>
      cli(engine, [...base, "--label", `patchloop.owner=${owner}`, "--entrypoint", "sleep", image, "300"]);
    const foreign = run("some-other-host:1:0");
    // A PID that cannot be alive (above pid_max) on this host: a killed run's leftover.
    const leftover = run(`${ownerLabel().split(":")[0]}:99999999:1`);
    const live = run(ownerLabel());
    expect([foreign.code, leftover.code, live.code]).toEqual([0, 0, 0]);
    const dry = await gcContainers({ executable: engine, runId, dryRun: true });
    expect(dry.removed.map((e) => e.id)).toEqual([leftover.out]);
    expect(containerGone(engine, leftover.out)).toBe(false);
    const report = await gcContainers({ executable: engine, runId });
    expect(report.removed.map((e) => e.id)).toEqual([leftover.out]);
    const reasons = Object.fromEntries(report.kept.map((e) => [e.id, e.reason]));
    expect(reasons).toEqual({
      [foreign.out]: "started on another host (some-other-host:1:0); use --all to remove",
      [live.out]: `its run (${ownerLabel()}) is still running`,
    });
    expect(containerGone(engine, leftover.out)).toBe(true);
    const all = await gcContainers({ executable: engine, runId, all: true });
    expect(all.removed.map((e) => e.id).sort()).toEqual([foreign.out, live.out].sort());
    expect(cli(engine, ["ps", "-a", "-q", "--filter", `label=patchloop.run=${runId}`]).out).toBe("");
  });
}

describe("patchloop env gc (CLI body)", () => {
  it("fails with status 1 when the named engine cannot be asked", async () => {
    const err: string[] = [];
    const code = await runEnvGc(
      { executable: "/nonexistent/docker" },
      { out: () => {}, err: (t) => void err.push(t) },
    );
    expect(code).toBe(1);
    expect(err.join("")).toMatch(
      /^error: \/nonexistent\/docker ps failed: \/nonexistent\/docker was not found on PATH/,
    );
  });
});

describe("container cleanup", () => {
  describeWithEngine("docker", "docker", () => cleanupTests("docker"));
  describeWithEngine("podman", "podman", () => cleanupTests("podman"));
});
