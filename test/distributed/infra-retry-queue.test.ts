import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";
import { type CliProcess, freePort, killStarted, patchloop, REDIS_SERVER, TestRedis } from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

describe.skipIf(!REDIS_SERVER)("run.infra_retry through a queue", () => {
  let root: string;
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let redis: TestRedis;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-dist-infra-"));
    f = buildFixtureInstances(root, { count: 1, repos: 1 });
    server = await startFakeLlmServer({ defaultBehaviour: stepwiseReply() });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), true);
    await redis.start();
  });
  afterAll(async () => {
    await killStarted(started);
    await redis?.stop();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("a worker retries a task whose server dropped the connection before the first reply, as a local batch does", async () => {
    // The first chat request's connection is dropped; with one try per call that is a ModelError
    // (retries_exhausted) before any reply: the worker runs the task again, and it is Submitted.
    server.enqueue({ type: "close" });
    const worker = patchloop([
      ...["worker", "--queue", redis.url, "-w", "1", "--environment", "local", "--repos-dir", f.reposDir],
      ...["--spool", join(root, "spool"), "--base-url", `${server.url}/v1`],
    ]);
    started.push(worker);
    const out = join(root, "run");
    const boss = patchloop([
      ...["swebench", "--subset", f.datasetPath, "-m", "openai/fake", "--base-url", `${server.url}/v1`],
      ...["--environment", "local", "-o", out, "--queue", redis.url],
      ...[
        "-c",
        "model.retry.max_attempts=1",
        "-c",
        "run.infra_retry.retries=2",
        "-c",
        "run.infra_retry.delay=0",
      ],
    ]);
    started.push(boss);
    expect([(await boss.done).code, boss.err().slice(-1500)]).toEqual([0, expect.any(String)]);
    const id = f.rows[0].instance_id;
    const rec = readJson<{ instances: Record<string, Record<string, unknown>> }>(join(out, "run.json"))
      .instances[id];
    expect([rec.exit_status, rec.infra_retries, rec.infrastructure, typeof rec.worker]).toEqual([
      "Submitted",
      1,
      undefined,
      "string",
    ]);
    const info = readJson<Trajectory>(join(out, id, `${id}.traj.json`)).info;
    expect([info.exit_status, info.infra_retries, typeof info.worker?.pid]).toEqual([
      "Submitted",
      1,
      "number",
    ]);
    expect(boss.err() + boss.out()).toMatch(
      new RegExp(`${id} Submitted \\(3 calls, .*\\) after 1 infrastructure retry`),
    );
    worker.proc.kill("SIGTERM");
    expect((await worker.done).code).toBe(0);
  }, 120_000);
});
