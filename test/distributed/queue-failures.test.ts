import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { INSTANCE_QUEUE } from "../../src/distributed/keys.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { VERSION } from "../../src/version.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";
import {
  addInstanceJob,
  type CliProcess,
  coordinatorJobConfig,
  freePort,
  killStarted,
  patchloop,
  queueCommand,
  queueOn,
  REDIS_SERVER,
  resultsText,
  runIdOf,
  startsOf,
  TestRedis,
  until,
} from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const traj = (out: string, id: string) =>
  readJson<Trajectory & { info: { worker?: { pid: number } } }>(join(out, id, `${id}.traj.json`));
const predIds = (out: string): string[] => {
  try {
    return Object.keys(readJson<object>(join(out, "preds.json")));
  } catch {
    return [];
  }
};

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
      defaultBehaviour: stepwiseReply(400),
    });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), true);
    await redis.start();
  });
  // A test that failed half way leaves no worker to take the next test's jobs.
  afterEach(async () => {
    await killStarted(started);
  });
  afterAll(async () => {
    await redis?.stop();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const worker = (reposDir: string, extra: string[] = [], modelUrl = server.url) => {
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
      `${modelUrl}/v1`,
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

  it("attempts go through the queue: each attempt is a job, run once, its folder written under attempt-<k>", async () => {
    const w = worker(f.reposDir);
    const out = join(root, "attempts");
    const boss = coordinator(out, ["--attempts", "2", "--slice", "0:2"]);
    const ended = await boss.done;
    expect(ended.code, boss.err()).toBe(0);
    const run = readJson<{ attempts: Record<string, { exit_status: string; worker?: string }> }>(
      join(out, "run.json"),
    );
    const ids = f.rows.slice(0, 2).map((r) => r.instance_id);
    expect(Object.keys(run.attempts).sort()).toEqual(
      ids.flatMap((id) => [`${id}/attempt-1`, `${id}/attempt-2`]).sort(),
    );
    for (const id of ids)
      for (const k of [1, 2]) {
        const t = readJson<Trajectory & { info: { worker?: { id: string } } }>(
          join(out, id, `attempt-${k}`, `${id}.traj.json`),
        );
        expect([t.info.exit_status, t.info.attempt_number, typeof t.info.worker?.id]).toEqual([
          "Submitted",
          k,
          "string",
        ]);
        expect(run.attempts[`${id}/attempt-${k}`].exit_status).toBe("Submitted");
      }
    expect(predIds(out).sort()).toEqual(ids.sort());
    // Each attempt started once.
    expect(
      w
        .err()
        .match(/ start \S+\/attempt-[12]\b/g)
        ?.sort(),
    ).toEqual(ids.flatMap((id) => [` start ${id}/attempt-1`, ` start ${id}/attempt-2`]).sort());
  }, 120_000);

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
    // A killed coordinator is gone at once (its connection closed), not a heartbeat period later.
    expect((await queueCommand("status", "--queue", redis.url, "--run", id)).out).toContain(
      `${id}  waiting ${f.rows.length}  running 0  stalled 0  failed 0  finished 0  results 0  no coordinator`,
    );
    const drain = patchloop(["queue", "drain", "--queue", redis.url, "--run", id]);
    expect((await drain.done).code).toBe(0);
    expect(drain.out()).toBe(`removed ${f.rows.length} waiting job(s) of run ${id}\n`);
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

  it("a worker that cannot run a job hands it back using no delivery: refused by every live worker it ends at once, beside a healthy worker it runs there", async () => {
    const partial = join(root, "repos-partial");
    cpSync(join(f.reposDir, "acme__lib0"), join(partial, "acme__lib0"), { recursive: true });
    const missing = (w: string) =>
      `worker ${w} has no clone of acme/lib1 in --repos-dir (${join(partial, "acme__lib1")})`;
    const slotsOf = (w: CliProcess) => /worker (\S+): 3 slot/.exec(w.err())?.[1] ?? "?";
    // Alone: its lib1 instances are refused by every live worker and end at once, no delivery used.
    const alone = worker(partial, ["-w", "3"]);
    const out = join(root, "refused");
    const boss = coordinator(out, ["-c", "run.queue.deliveries=1"]);
    expect((await boss.done).code).toBe(1);
    const id = slotsOf(alone);
    for (const row of f.rows) {
      const t = traj(out, row.instance_id);
      if (row.repo === "acme/lib0") expect(t.info.exit_status).toBe("Submitted");
      else
        expect([t.info.exit_status, t.info.exit_message]).toEqual([
          "EnvironmentError",
          `the queue gave this instance up: no live worker can run it (${id}: ${missing(id)})`,
        ]);
    }
    expect(boss.out()).toContain("4 instance(s) must run again");
    expect(boss.out() + boss.err()).toContain(`worker ${id} cannot run some instances: ${missing(id)}`);
    // queue status says what it could not run.
    const status = (await queueCommand("status", "--queue", redis.url)).out;
    expect(status).toMatch(new RegExp(`0/3 running  environment local  patchloop ${VERSION}  since `));
    expect(status).toMatch(
      new RegExp(`    cannot run \\d+ job\\(s\\), last at \\S+: ${missing(id).replace(/[()]/g, "\\$&")}`),
    );
    alone.proc.kill("SIGTERM");
    expect((await alone.done).code).toBe(0);

    // Beside a healthy worker: every instance runs; none spent its one delivery on the partial worker.
    const healthy = worker(f.reposDir, ["-w", "1"]);
    const beside = worker(partial, ["-w", "3"]);
    // Both live before any job exists: on a loaded machine the healthy worker could otherwise run
    // every job before the partial one starts, and nothing would be refused.
    // By pid (queue status lists `host:pid`): the stopped worker above may linger in the list a moment.
    let seen = "";
    await until("both workers are live", async () => {
      seen = (await queueCommand("status", "--queue", redis.url)).out;
      return [healthy, beside].every((w) => seen.includes(`:${w.proc.pid}  0/`));
    }).catch((err: Error) => {
      throw new Error(`${err.message}; queue status said:\n${seen}`);
    });
    const out2 = join(root, "refused-beside");
    const boss2 = coordinator(out2, ["-c", "run.queue.deliveries=1"]);
    expect([(await boss2.done).code, boss2.err().slice(-1000)]).toEqual([0, expect.any(String)]);
    for (const row of f.rows) expect(traj(out2, row.instance_id).info.exit_status).toBe("Submitted");
    for (const row of f.rows.filter((r) => r.repo === "acme/lib1"))
      expect(traj(out2, row.instance_id).info.worker?.pid).toBe(healthy.proc.pid);
    const refusals = readFileSync(join(out2, "run.log"), "utf8").match(
      /cannot run it: worker \S+ has no clone/g,
    );
    expect(refusals?.length).toBeGreaterThan(0);
    expect(await queueEmpty()).toContain("runs: none");
    for (const w of [healthy, beside]) w.proc.kill("SIGTERM");
    for (const w of [healthy, beside]) expect((await w.done).code).toBe(0);
  }, 180_000);

  it("a job of another patchloop version is refused and handed back, using no delivery; queue status shows each worker's version", async () => {
    const w = worker(f.reposDir);
    const jobId = await addInstanceJob(redis, {
      run: "other-version",
      row: f.rows[0],
      config: coordinatorJobConfig(["model.model_name=openai/fake", "environment.environment_class=local"]),
      version: "0.0.1",
    });
    const reason =
      `this worker runs patchloop ${VERSION} and the job comes from a coordinator of patchloop 0.0.1: ` +
      "run one version on the coordinator and every worker";
    await until("the worker refused the job", () => w.err().includes("cannot run it"), 30_000);
    expect(w.err()).toContain(
      `job "${jobId}": this worker cannot run it: ${reason}; it goes back to the queue`,
    );
    const q = queueOn(redis, INSTANCE_QUEUE);
    expect((await q.getJobLogs(jobId)).logs).toEqual([]);
    expect((await q.getJob(jobId))?.attemptsMade).toBe(0);
    await q.close();
    expect(await resultsText(redis, "other-version")).toContain(reason);
    let status = "";
    await until("its heartbeat lists the refusal", async () => {
      status = (await queueCommand("status", "--queue", redis.url)).out;
      return status.includes(`: ${reason}\n`);
    });
    expect(status).toMatch(
      new RegExp(`  \\d/2 running  environment local  patchloop ${VERSION}  since \\S+`),
    );
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
    const clean = await queueCommand("clean", "--queue", redis.url, "--run", "other-version", "--abandon");
    expect(clean.out).toMatch(
      /^removed 1 job\(s\) of 1 run\(s\): other-version; dropped \d+ result\(s\), told 0 running job\(s\) to stop\n$/,
    );
    expect(await queueEmpty()).toContain("runs: none");
  }, 120_000);

  it("a coordinator killed before its first result keeps its run; started again it collects what the workers finished meanwhile, running nothing twice; clean --abandon drops a run", async () => {
    const out = join(root, "resumed");
    const waiting = (run: string, n: number) => async () =>
      (await queueCommand("status", "--queue", redis.url, "--run", run)).out.includes(
        `${run}  waiting ${n}  `,
      );
    let boss = coordinator(out);
    const run = await runIdOf(boss);
    await until("its jobs wait", waiting(run, f.rows.length));
    boss.proc.kill("SIGKILL");
    await boss.done;
    expect(readJson<{ info: { queue?: unknown } }>(join(out, "run.json")).info.queue).toEqual({
      url: redis.url,
      run,
    });
    const w = worker(f.reposDir);
    boss = coordinator(out);
    expect(await runIdOf(boss)).toBe(run);
    await until("two results are recorded", () => predIds(out).length >= 2);
    boss.proc.kill("SIGKILL");
    await boss.done;
    const ends = () => w.err().match(/ end acme__/g)?.length ?? 0;
    await until("the worker finished every instance", () => ends() >= f.rows.length);
    expect((await queueCommand("clean", "--queue", redis.url)).out).toMatch(
      new RegExp(
        `kept run ${run}: \\d+ result\\(s\\) wait for its coordinator: run the same patchloop swebench command again ` +
          `to collect them, or drop them with patchloop queue clean --run ${run} --abandon`,
      ),
    );
    boss = coordinator(out);
    expect(await runIdOf(boss)).toBe(run);
    expect((await boss.done).code).toBe(0);
    for (const row of f.rows) expect(traj(out, row.instance_id).info.exit_status).toBe("Submitted");
    expect(startsOf(w).sort()).toEqual(f.rows.map((r) => r.instance_id).sort());
    expect(readFileSync(join(out, "run.log"), "utf8")).toMatch(/were in the queue already \(kept\)/);
    expect(await queueEmpty()).toContain("runs: none");

    // A run whose coordinator is gone for good: its results are dropped on request. Its jobs are
    // all enqueued while no worker runs (so its coordinator records none), then a worker runs them.
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
    const gone = join(root, "abandoned");
    const other = coordinator(gone);
    const run2 = await runIdOf(other);
    await until("its jobs wait", waiting(run2, f.rows.length));
    other.proc.kill("SIGKILL");
    await other.done;
    const later = worker(f.reposDir);
    await until(
      "the worker finished that run",
      () => (later.err().match(/ end acme__/g)?.length ?? 0) >= f.rows.length,
    );
    const clean = await queueCommand("clean", "--queue", redis.url, "--run", run2, "--abandon");
    expect(clean.out).toBe(
      `removed ${f.rows.length} job(s) of 1 run(s): ${run2}; dropped ${f.rows.length} result(s), told 0 running job(s) to stop\n`,
    );
    expect(await queueEmpty()).toContain("runs: none");
    later.proc.kill("SIGTERM");
    expect((await later.done).code).toBe(0);
  }, 240_000);

  it("queue drain under a live coordinator: it ends saying its instances did not start; run.log names no worker count", async () => {
    const out = join(root, "drained");
    const boss = coordinator(out);
    const run = await runIdOf(boss);
    await until("its jobs wait", async () =>
      (await queueCommand("status", "--queue", redis.url, "--run", run)).out.includes(
        `waiting ${f.rows.length}  `,
      ),
    );
    const drain = await queueCommand("drain", "--queue", redis.url, "--run", run);
    expect(drain.out).toBe(`removed ${f.rows.length} waiting job(s) of run ${run}\n`);
    expect((await boss.done).code).toBe(1);
    expect(boss.out()).toContain(
      `${f.rows.length} instance(s) did not start: their jobs were removed from the queue (patchloop queue drain); ` +
        "run the same command again to run them.",
    );
    expect(boss.out()).not.toContain("must run again");
    expect(readFileSync(join(out, "run.log"), "utf8")).toContain(
      `${f.rows.length} to run, workers of the queue, model openai/fake`,
    );
    expect(await queueEmpty()).toContain("runs: none");
  }, 120_000);

  it("SIGTERM with no grace hands running jobs back (no delivery used); another worker runs them", async () => {
    const out = join(root, "hand-back");
    const first = worker(f.reposDir, ["-c", "run.queue.grace_seconds=0"]);
    const boss = coordinator(out, ["-c", "run.queue.deliveries=1"]);
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
    // Replies slow enough that the running instances are still running when Ctrl-C reaches them,
    // however busy the machine.
    const slow = await startFakeLlmServer({
      record: false,
      defaultBehaviour: stepwiseReply(10_000),
    });
    const first_ = worker(f.reposDir, [], slow.url);
    let boss = coordinator(out);
    await until("two instances run", () => (first_.err().match(/start acme__/g)?.length ?? 0) >= 2);
    const at = Date.now();
    boss.proc.kill("SIGINT");
    const first = await boss.done;
    // No instance starts once Ctrl-C is sent (a worker checks the run's interrupt mark first).
    const startedAfter = [...first_.err().matchAll(/^(\S+) .* start (acme__\S+)/gm)]
      .filter((m) => Date.parse(m[1]) > at)
      .map((m) => m[2]);
    expect(startedAfter).toEqual([]);
    expect(first.code).toBe(1);
    expect(boss.out()).toContain("stopped early: interrupted.");
    const statuses = Object.values(
      readJson<{ instances: Record<string, { exit_status: string }> }>(join(out, "run.json")).instances,
    ).map((i) => i.exit_status);
    expect(statuses).toContain("Interrupted");
    expect(await queueEmpty()).toContain("runs: none");
    first_.proc.kill("SIGTERM");
    expect((await first_.done).code).toBe(0);
    await slow.close();
    const w = worker(f.reposDir);
    boss = coordinator(out);
    expect((await boss.done).code).toBe(0);
    for (const row of f.rows) expect(traj(out, row.instance_id).info.exit_status).toBe("Submitted");
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 180_000);
});
