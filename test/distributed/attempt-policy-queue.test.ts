import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { buildFixtureInstances, type FixtureInstances, stepwiseReply } from "../support/fixture-instances.js";
import {
  type CliProcess,
  freePort,
  killStarted,
  patchloop,
  REDIS_SERVER,
  startsOf,
  TestRedis,
} from "./helpers.js";

/**
 * Issue 40, "a cost cap that holds": through a queue, attempts 2..N of an instance are enqueued as
 * soon as attempt 1 is answered, so the attempt policy (agree, cost_limit) used to hold back only
 * attempts not yet enqueued: every enqueued attempt ran on the workers. The coordinator now takes
 * back the waiting jobs of an instance whose attempts the policy stopped.
 */
describe.skipIf(!REDIS_SERVER)("the attempt policy through a queue", () => {
  let root: string;
  let f: FixtureInstances;
  let server: FakeLlmServer;
  let redis: TestRedis;
  const started: CliProcess[] = [];
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-policy-queue-"));
    f = buildFixtureInstances(root, { count: 1, repos: 1 });
    server = await startFakeLlmServer({ record: false, defaultBehaviour: stepwiseReply(300) });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), false);
    await redis.start();
  });
  afterAll(async () => {
    await killStarted(started);
    await redis?.stop();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("agree: once the attempts agree, the enqueued attempts that no worker started are taken back, not run", async () => {
    const [x] = f.rows;
    const out = join(root, "run");
    const worker = patchloop([
      ...["worker", "--queue", redis.url, "-w", "1", "--environment", "local", "--repos-dir", f.reposDir],
      ...["--spool", join(root, "spool"), "--base-url", `${server.url}/v1`],
    ]);
    started.push(worker);
    const boss = patchloop([
      ...["swebench", "--subset", f.datasetPath, "-m", "openai/fake", "--base-url", `${server.url}/v1`],
      ...["--environment", "local", "-o", out, "--queue", redis.url, "--attempts", "4"],
      ...["-c", "run.attempt_policy.agree=1", "-c", "run.select.enabled=false"],
    ]);
    started.push(boss);
    const { code } = await boss.done;
    expect(code, boss.err()).toBe(0);
    const run = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
      attempts: Record<string, { exit_status: string }>;
    };
    // One worker slot: attempt 1 runs, attempt 2 may be taken by the worker before the result
    // arrives; attempts 3 and 4 wait in the queue and are taken back.
    const ran = Object.keys(run.attempts).sort();
    expect(ran.slice(0, 1)).toEqual([`${x.instance_id}/attempt-1`]);
    expect(ran.length).toBeLessThanOrEqual(2);
    for (const k of [3, 4]) {
      expect(run.attempts[`${x.instance_id}/attempt-${k}`]).toBeUndefined();
      expect(existsSync(join(out, x.instance_id, `attempt-${k}`))).toBe(false);
    }
    expect(startsOf(worker).length).toBe(ran.length);
    expect(readFileSync(join(out, "run.log"), "utf8")).toContain(
      `${x.instance_id}: no further attempt starts: 1 attempts agree on one patch (run.attempt_policy.agree 1)`,
    );
  }, 180_000);
});
