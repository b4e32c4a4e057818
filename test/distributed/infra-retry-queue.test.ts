import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { stepwiseReply } from "../support/fixture-instances.js";
import { REDIS_SERVER, startRigCoordinator, startRigWorker, useQueueRig } from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

describe.skipIf(!REDIS_SERVER)("run.infra_retry through a queue", () => {
  const rig = useQueueRig({
    prefix: "patchloop-dist-infra-",
    fixture: { count: 1, repos: 1 },
    server: { defaultBehaviour: stepwiseReply() },
    aof: true,
  });

  it("a worker retries a task whose server dropped the connection before the first reply, as a local batch does", async () => {
    // The first chat request's connection is dropped; with one try per call that is a ModelError
    // (retries_exhausted) before any reply: the worker runs the task again, and it is Submitted.
    rig.server.enqueue({ type: "close" });
    const worker = startRigWorker(rig, ["--base-url", `${rig.server.url}/v1`]);
    const out = join(rig.root, "run");
    const boss = startRigCoordinator(rig, out, [
      "-c",
      "model.retry.max_tries=1",
      "-c",
      "run.infra_retry.retries=2",
      "-c",
      "run.infra_retry.delay=0",
    ]);
    expect([(await boss.done).code, boss.err().slice(-1500)]).toEqual([0, expect.any(String)]);
    const id = rig.f.rows[0].instance_id;
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
