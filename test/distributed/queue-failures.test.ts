import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  buildFixtureInstances,
  type FixtureInstances,
  STEPWISE_COMMAND,
} from "../support/fixture-instances.js";
import { type CliProcess, freePort, patchloop, REDIS_SERVER, TestRedis, until } from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const traj = (out: string, id: string) =>
  readJson<Trajectory & { info: { worker?: { pid: number } } }>(join(out, id, `${id}.traj.json`));

describe.skipIf(!REDIS_SERVER)("distributed runs: attempts, hand-back, caps, Ctrl-C", () => {
  let root: string;
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let redis: TestRedis;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-dist-fail-"));
    f = buildFixtureInstances(root, { count: 8, repos: 2 });
    server = await startFakeLlmServer({
      record: false,
      defaultBehaviour: {
        type: "reply",
        content: "step",
        toolCalls: [{ name: "bash", arguments: { command: STEPWISE_COMMAND } }],
        usage: { promptTokens: 100, completionTokens: 10 },
        delayMs: 400,
      },
    });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), true);
    await redis.start();
  });
  // A test that failed half way leaves no worker to take the next test's jobs.
  afterEach(async () => {
    const left = started.splice(0).filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
    for (const p of left) p.proc.kill("SIGKILL");
    await Promise.all(left.map((p) => p.done));
  });
  afterAll(async () => {
    await redis?.stop();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const worker = (reposDir: string, extra: string[] = []) => {
    const p = patchloop([
      "worker",
      "--queue",
      redis.url,
      "-w",
      "2",
      "--environment",
      "local",
      "--repos-dir",
      reposDir,
      "--spool",
      join(root, "spool"),
      "-c",
      "run.queue.lock_seconds=3",
      "-c",
      "run.queue.stalled_check_seconds=1",
      "--base-url",
      `${server.url}/v1`,
      ...extra,
    ]);
    started.push(p);
    return p;
  };
  const coordinator = (out: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env) => {
    const p = patchloop(
      [
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
        ...extra,
      ],
      env,
    );
    started.push(p);
    return p;
  };
  const queueEmpty = async () => {
    const s = patchloop(["queue", "status", "--queue", redis.url]);
    await s.done;
    return s.out();
  };

  it("secrets never go into Redis: the job's config has them masked, the worker brings its own", async () => {
    const key = "sk-queue-SECRET-4f9a2b7c";
    const hostToken = "tok-host-SECRET-8d3e1f60";
    const w = worker(f.reposDir, ["-c", `model.model_kwargs.api_key=${key}`]);
    const out = join(root, "secrets");
    const boss = coordinator(out, ["-c", `model.model_kwargs.api_key=${key}`], {
      ...process.env,
      PLTEST_SERVICE_TOKEN: hostToken,
    });
    expect((await boss.done).code).toBe(0);
    for (const row of f.rows) expect(traj(out, row.instance_id).info.exit_status).toBe("Submitted");
    // Every command Redis was given is in its append-only file (fsync always).
    const aofDir = join(redis.dir, "appendonlydir");
    const stored = readdirSync(aofDir)
      .map((n) => readFileSync(join(aofDir, n), "latin1"))
      .join("");
    expect(stored.length).toBeGreaterThan(1000);
    expect(stored).toContain("model_kwargs");
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(hostToken);
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 120_000);

  it("patchloop queue status, drain and clean: what waits for a run whose coordinator was killed, then nothing", async () => {
    const out = join(root, "left");
    const boss = coordinator(out);
    const run = async () => {
      const s = patchloop(["queue", "status", "--queue", redis.url]);
      await s.done;
      return /^ {2}(\S+) {2}waiting/m.exec(s.out())?.[1];
    };
    await until("the run is in the queue", async () => (await run()) !== undefined);
    const id = (await run()) as string;
    await until("its instances wait", async () => {
      const s = patchloop(["queue", "status", "--queue", redis.url, "--run", id]);
      await s.done;
      return s.out().includes(`${id}  waiting ${f.rows.length}  running 0  stalled 0  failed 0`);
    });
    boss.proc.kill("SIGKILL");
    await boss.done;
    const drain = patchloop(["queue", "drain", "--queue", redis.url, "--run", id]);
    expect((await drain.done).code).toBe(0);
    expect(drain.out()).toBe(`removed ${f.rows.length} waiting job(s) of run ${id}\n`);
    await new Promise((r) => setTimeout(r, 10_000)); // the killed coordinator's heartbeat goes stale
    const clean = patchloop(["queue", "clean", "--queue", redis.url]);
    expect((await clean.done).code).toBe(0);
    expect(clean.out()).toBe(`removed 0 job(s) of 1 run(s): ${id}\n`);
    expect(await queueEmpty()).toContain("runs: none");
    const bad = patchloop(["queue", "status", "--queue", "redis://127.0.0.1:1/0"]);
    expect((await bad.done).code).toBe(2);
    expect(bad.err()).toBe(
      "error: the queue at redis://127.0.0.1:1/0 does not answer (ECONNREFUSED): start redis-server there " +
        "(docs/distributed.md), or check --queue\n",
    );
  }, 120_000);

  it("a job that keeps failing is given up after run.queue.attempts and recorded with its error", async () => {
    const partial = join(root, "repos-partial");
    cpSync(join(f.reposDir, "acme__lib0"), join(partial, "acme__lib0"), { recursive: true });
    const w = worker(partial);
    const out = join(root, "given-up");
    const boss = coordinator(out, ["-c", "run.queue.attempts=2"]);
    const ended = await boss.done;
    expect(ended.code).toBe(1);
    for (const row of f.rows) {
      const t = traj(out, row.instance_id);
      if (row.repo === "acme/lib0") expect(t.info.exit_status).toBe("Submitted");
      else {
        expect(t.info.exit_status).toBe("EnvironmentError");
        expect(t.info.exit_message).toBe(
          `the queue gave this instance up: worker ${w.err().match(/worker (\S+): 2 slot/)?.[1]} has no clone of acme/lib1 ` +
            `in --repos-dir (${join(partial, "acme__lib1")})`,
        );
      }
    }
    expect(boss.out()).toContain("4 instance(s) must run again");
    expect(await queueEmpty()).toContain("runs: none");
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 120_000);

  it("SIGTERM with no grace hands running jobs back (no attempt used); another worker runs them", async () => {
    const out = join(root, "hand-back");
    const first = worker(f.reposDir, ["-c", "run.queue.grace_seconds=0"]);
    const boss = coordinator(out, ["-c", "run.queue.attempts=1"]);
    await until(
      "the first worker runs two instances",
      () => (first.err().match(/start acme__/g)?.length ?? 0) >= 2,
    );
    first.proc.kill("SIGTERM");
    expect((await first.done).code).toBe(0);
    expect(first.err()).toMatch(/handed acme__lib\d-\d back to the queue/);
    const handed = [...first.err().matchAll(/handed (acme__lib\d-\d) back/g)].map((m) => m[1]);
    const second = worker(f.reposDir);
    expect((await boss.done).code).toBe(0);
    for (const id of handed) expect(traj(out, id).info.worker?.pid).toBe(second.proc.pid);
    for (const row of f.rows) expect(traj(out, row.instance_id).info.exit_status).toBe("Submitted");
    expect(await queueEmpty()).toContain("runs: none");
    second.proc.kill("SIGTERM");
    expect((await second.done).code).toBe(0);
  }, 120_000);

  it("the call cap holds across workers: nothing new starts once it is reached, running ones finish", async () => {
    const out = join(root, "capped");
    const ws = [worker(f.reposDir), worker(f.reposDir)];
    const boss = coordinator(out, ["--call-limit", "6"]);
    const ended = await boss.done;
    expect(ended.code).toBe(1);
    expect(boss.out()).toContain("stopped early: the global call limit (--call-limit");
    const run = readJson<{
      stopped_by: string;
      instances: Record<string, { exit_status: string; api_calls: number }>;
    }>(join(out, "run.json"));
    expect(run.stopped_by).toBe("call_limit");
    const ran = Object.values(run.instances);
    // Every instance that started finished (3 calls each); the others never started.
    expect(ran.every((i) => i.exit_status === "Submitted" && i.api_calls === 3)).toBe(true);
    expect(ran.length).toBeGreaterThanOrEqual(2);
    expect(ran.length).toBeLessThan(f.rows.length);
    expect(await queueEmpty()).toContain("runs: none");
    for (const w of ws) w.proc.kill("SIGTERM");
    for (const w of ws) expect((await w.done).code).toBe(0);
  }, 120_000);

  it("Ctrl-C on the coordinator: running instances end Interrupted on their workers, the same command finishes them", async () => {
    const out = join(root, "interrupted");
    const w = worker(f.reposDir);
    let boss = coordinator(out);
    await until("two instances run", () => (w.err().match(/start acme__/g)?.length ?? 0) >= 2);
    boss.proc.kill("SIGINT");
    const first = await boss.done;
    expect(first.code).toBe(1);
    expect(boss.out()).toContain("stopped early: interrupted.");
    const statuses = Object.values(
      readJson<{ instances: Record<string, { exit_status: string }> }>(join(out, "run.json")).instances,
    ).map((i) => i.exit_status);
    expect(statuses).toContain("Interrupted");
    expect(await queueEmpty()).toContain("runs: none");
    boss = coordinator(out);
    expect((await boss.done).code).toBe(0);
    for (const row of f.rows) expect(traj(out, row.instance_id).info.exit_status).toBe("Submitted");
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 120_000);
});
