import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stepwiseReply } from "../support/fixture-instances.js";
import { REDIS_SERVER, startRigCoordinator, startRigWorker, startsOf, useQueueRig } from "./helpers.js";

/**
 * Issue 40, "a cost cap that holds": through a queue, attempts 2..N of an instance are enqueued as
 * soon as attempt 1 is answered, so the attempt policy (agree, cost_limit) used to hold back only
 * attempts not yet enqueued: every enqueued attempt ran on the workers. The coordinator now takes
 * back the waiting jobs of an instance whose attempts the policy stopped.
 */
describe.skipIf(!REDIS_SERVER)("the attempt policy through a queue", () => {
  const rig = useQueueRig({
    prefix: "patchloop-policy-queue-",
    fixture: { count: 1, repos: 1 },
    server: { record: false, defaultBehaviour: stepwiseReply(300) },
    aof: false,
  });

  it("agree: once the attempts agree, the enqueued attempts that no worker started are taken back, not run", async () => {
    const [x] = rig.f.rows;
    const out = join(rig.root, "run");
    const worker = startRigWorker(rig, ["--base-url", `${rig.server.url}/v1`]);
    const boss = startRigCoordinator(rig, out, [
      ...["--attempts", "4"],
      ...["-c", "run.attempt_policy.agree=1", "-c", "run.select.enabled=false"],
    ]);
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
