import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { VERSION } from "../../src/version.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";
import {
  alive,
  type CliProcess,
  freePort,
  killStarted,
  patchloop,
  queueCommand,
  REDIS_SERVER,
  startsOf,
  TestRedis,
  until,
} from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const status = (out: string, id: string) =>
  readJson<Trajectory>(join(out, id, `${id}.traj.json`)).info.exit_status;

/**
 * Redis away while a run goes on: not there when a worker starts (issue 26 item 4), frozen with
 * SIGSTOP mid-run for longer than the workers' locks (item 5).
 */
describe.skipIf(!REDIS_SERVER)("distributed runs: a Redis that is not there, or frozen", () => {
  let root: string;
  let f: FixtureInstances;
  let server: FakeLlmServer;
  const started: CliProcess[] = [];
  const servers: TestRedis[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-dist-outage-"));
    f = buildFixtureInstances(root, { count: 6, repos: 2 });
    server = await startFakeLlmServer({
      record: false,
      defaultBehaviour: stepwiseReply(1500),
    });
  });
  afterEach(async () => {
    await killStarted(started);
    for (const r of servers.splice(0)) await r.stop();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const newRedis = async (name: string) => {
    mkdirSync(join(root, name));
    const r = new TestRedis(join(root, name), await freePort(), false);
    servers.push(r);
    return r;
  };
  const worker = (redis: TestRedis, name: string) => {
    const p = patchloop([
      "worker",
      "--queue",
      redis.url,
      "-w",
      "2",
      "--environment",
      "local",
      "--repos-dir",
      f.reposDir,
      "--spool",
      join(root, `spool-${name}`),
      "-c",
      "run.queue.lock_seconds=2",
      "-c",
      "run.queue.stalled_check_seconds=1",
      "--base-url",
      `${server.url}/v1`,
    ]);
    started.push(p);
    return p;
  };
  const coordinator = (redis: TestRedis, out: string) => {
    const p = patchloop([
      "swebench",
      "--subset",
      f.datasetPath,
      "-m",
      "openai/fake",
      "--base-url",
      `${server.url}/v1`,
      "--environment",
      "local",
      "-o",
      out,
      "--queue",
      redis.url,
    ]);
    started.push(p);
    return p;
  };

  it("a worker started while Redis is down says so, waits, and registers and works once Redis answers", async () => {
    const redis = await newRedis("late");
    const w = worker(redis, "late");
    await until(
      "the worker says the queue does not answer",
      () => w.err().includes("does not answer"),
      30_000,
    );
    expect(w.err()).toContain(`the queue at ${redis.url} does not answer (ECONNREFUSED); waiting for it: `);
    expect(w.err()).not.toContain("slot(s)");
    expect(alive(w.proc.pid)).toBe(true);

    await redis.start();
    await until("the worker registers", () => w.err().includes("slot(s), environment local"), 30_000);
    expect(w.err()).toContain(`the queue at ${redis.url} answers again`);
    await until("queue status lists it", async () =>
      (await queueCommand("status", "--queue", redis.url)).out.includes(`patchloop ${VERSION}  since `),
    );
    const out = join(root, "late-run");
    const boss = coordinator(redis, out);
    expect([(await boss.done).code, boss.err().slice(-1500)]).toEqual([0, expect.any(String)]);
    for (const row of f.rows) expect(status(out, row.instance_id)).toBe("Submitted");
    expect(startsOf(w).sort()).toEqual(f.rows.map((r) => r.instance_id).sort());
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 120_000);

  it("a frozen Redis: every side says so within the call limit, queue status does not hang, and after an outage longer than the locks no instance runs twice nor is cancelled", async () => {
    const redis = await newRedis("frozen");
    await redis.start();
    const workers = [worker(redis, "a"), worker(redis, "b")];
    for (const w of workers) await until("a worker registers", () => w.err().includes("slot(s)"), 30_000);
    const out = join(root, "frozen-run");
    const boss = coordinator(redis, out);
    const running = () => workers.reduce((n, w) => n + startsOf(w).length, 0);
    await until("four instances run", () => running() >= 4);

    redis.freeze();
    const frozenAt = Date.now();
    const silent = "does not answer (no reply within 5 s)";
    await until(
      "the coordinator and both workers say the queue does not answer",
      () => [boss, ...workers].every((p) => p.err().includes(silent)),
      30_000,
    );
    // Told within the call limit and a probe or two, not after the outage.
    expect(Date.now() - frozenAt).toBeLessThan(15_000);
    const t0 = Date.now();
    const s = await queueCommand("status", "--queue", redis.url);
    expect([s.code, s.err]).toEqual([
      2,
      `error: the queue at ${redis.url} does not answer (no reply within 5 s): start redis-server there ` +
        "(docs/distributed.md), or check --queue\n",
    ]);
    // Its 5 s limit on the first answer and a node start on a busy machine: never the outage's length.
    expect(Date.now() - t0).toBeLessThan(20_000);
    // The outage has lasted longer than a lock (2 s) and the stalled-job check (1 s) by now.
    expect(Date.now() - frozenAt).toBeGreaterThan(5000);
    redis.thaw();

    expect([(await boss.done).code, boss.err().slice(-1500)]).toEqual([0, expect.any(String)]);
    for (const p of [boss, ...workers]) expect(p.err()).toContain("answers again");
    for (const row of f.rows) expect(status(out, row.instance_id)).toBe("Submitted");
    // Each instance started once over both workers: none started again after the locks lapsed,
    // and no repeat was cancelled.
    const starts = workers.flatMap(startsOf).sort();
    expect(starts).toEqual(f.rows.map((r) => r.instance_id).sort());
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).not.toMatch(/was dropped|told to stop|cancel/);
    for (const w of workers) expect(w.err()).not.toMatch(/cancel/i);
    for (const w of workers) w.proc.kill("SIGTERM");
    for (const w of workers) expect((await w.done).code).toBe(0);
  }, 180_000);
});
