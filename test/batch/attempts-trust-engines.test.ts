import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import type { FakeBehaviour } from "../../src/testing/fake-llm-server.js";
import { REDIS_SERVER, startRigCoordinator, startRigWorker, useQueueRig } from "../distributed/helpers.js";
import { describeWithEngine } from "../support/engines.js";
import { FIX_COMMAND, SUBMIT_COMMAND, stepwiseReply } from "../support/fixture-instances.js";
import { swebench } from "../support/swebench-command.js";
import { tempDir } from "../support/tmp.js";
import { readJson, useFixtureBatch } from "./helpers.js";

/**
 * Items 2 and 4 of docs/attempts.md's guarantees (see attempts-trust.unit.test.ts for the local
 * environment) in a bwrap sandbox, and through a real Redis with a `patchloop worker` process: an
 * attempt whose environment cannot open is recorded once, and replace_failed replaces a ModelError.
 */

const reply = (command: string): FakeBehaviour => ({
  type: "reply",
  content: "step",
  toolCalls: [{ name: "bash", arguments: { command } }],
});
const FIX = [reply(FIX_COMMAND), reply(SUBMIT_COMMAND)];
const DOWN: FakeBehaviour = { type: "error", status: 500, body: { error: { message: "the GPU fell over" } } };
const NOT_IN_CLONE = "0123456789abcdef0123456789abcdef01234567";

interface RunJson {
  instances: Record<string, { exit_status: string; standing_attempt?: number }>;
  attempts?: Record<string, { exit_status: string; replaced_by?: number }>;
}

const statusesOf = (run: RunJson) =>
  Object.fromEntries(
    Object.entries(run.attempts ?? {})
      .map(([k, v]) => [k, v.replaced_by ? `${v.exit_status} replaced_by ${v.replaced_by}` : v.exit_status])
      .sort(),
  );

function writeDataset(root: string, name: string, rows: SwebenchInstance[]): string {
  const path = join(root, `${name}.jsonl`);
  writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return path;
}

describeWithEngine("bwrap", "attempts you can trust, in bwrap", () => {
  const b = useFixtureBatch("patchloop-attempts-bwrap-", { count: 2, repos: 1 }, undefined, false);

  it("an attempt whose sandbox cannot open is recorded; a ModelError attempt is replaced at once", async () => {
    const [x, y] = b.f.rows;
    const data = writeDataset(b.root, "bwrap", [{ ...x, base_commit: NOT_IN_CLONE }, y]);
    const out = join(tempDir(), "run");
    // -w 1: x's attempts (no sandbox, no request), then y's: 1 fails, 3 replaces it, then 2.
    b.server.enqueue(DOWN, ...FIX, ...FIX);
    const r = await swebench([
      ...["--subset", data, "-m", "openai/fake", "--base-url", `${b.server.url}/v1`],
      ...["--environment", "bwrap", "--repos-dir", b.f.reposDir, "-o", out, "-w", "1", "--attempts", "2"],
      ...["-c", "run.attempt_policy.replace_failed=1", "-c", "run.select.enabled=false"],
      ...["-c", "model.retry.max_tries=1"],
    ]);
    expect(r.code, r.err).toBe(1);
    const run = readJson<RunJson>(join(out, "run.json"));
    // x's first failure is replaced (and final); its replacement 3 and its attempt 2 fail alike with
    // no replacement left: they run again. y's ModelError is replaced by 3.
    expect(statusesOf(run)).toEqual({
      [`${x.instance_id}/attempt-1`]: "EnvironmentError replaced_by 3",
      [`${x.instance_id}/attempt-2`]: "EnvironmentError",
      [`${x.instance_id}/attempt-3`]: "EnvironmentError",
      [`${y.instance_id}/attempt-1`]: "ModelError replaced_by 3",
      [`${y.instance_id}/attempt-2`]: "Submitted",
      [`${y.instance_id}/attempt-3`]: "Submitted",
    });
    expect(run.instances[x.instance_id].exit_status).toBe("EnvironmentError");
    expect(run.instances[y.instance_id]).toMatchObject({ exit_status: "Submitted", standing_attempt: 2 });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(
      `Submitted:\n  - ${y.instance_id}\nEnvironmentError:\n  - ${x.instance_id}\n`,
    );
    expect(readFileSync(join(out, "run.log"), "utf8")).not.toContain("was dropped");
    expect(r.err).toContain(
      `[1/5 attempts] ${x.instance_id} attempt 1 EnvironmentError (0 calls, $0.00, 0s): could not open the environment`,
    );
  });
});

describe.skipIf(!REDIS_SERVER)(
  "attempts you can trust, through a queue (Redis and a patchloop worker)",
  () => {
    const rig = useQueueRig({
      prefix: "patchloop-attempts-queue-",
      fixture: { count: 2, repos: 1 },
      server: { defaultBehaviour: stepwiseReply() },
      aof: false,
    });

    it("an attempt whose environment cannot open is recorded once; a ModelError attempt is replaced", async () => {
      const [x, y] = rig.f.rows;
      const data = writeDataset(rig.root, "queue", [{ ...x, base_commit: NOT_IN_CLONE }, y]);
      const out = join(rig.root, "run");
      // The first request the server sees is y's attempt 1 (x's attempts send none): it fails.
      rig.server.enqueue(DOWN);
      const model = ["-c", `model.base_url=${rig.server.url}/v1`];
      startRigWorker(rig, model);
      const boss = startRigCoordinator(
        rig,
        out,
        [
          ...["--attempts", "2"],
          ...["-c", "run.attempt_policy.replace_failed=1", "-c", "model.retry.max_tries=1"],
        ],
        model,
        data,
      );
      const { code } = await boss.done;
      expect(code, boss.err()).toBe(1);
      const run = readJson<RunJson>(join(out, "run.json"));
      expect(statusesOf(run)).toEqual({
        [`${x.instance_id}/attempt-1`]: "EnvironmentError replaced_by 3",
        [`${x.instance_id}/attempt-2`]: "EnvironmentError",
        [`${x.instance_id}/attempt-3`]: "EnvironmentError",
        [`${y.instance_id}/attempt-1`]: "ModelError replaced_by 3",
        [`${y.instance_id}/attempt-2`]: "Submitted",
        [`${y.instance_id}/attempt-3`]: "Submitted",
      });
      expect(run.instances[x.instance_id].exit_status).toBe("EnvironmentError");
      expect(readFileSync(join(out, "run.log"), "utf8")).not.toContain("was dropped");
      // The coordinator has no clones to test with: it does not select by default, and says how to.
      expect(boss.out()).toContain(
        "a queue's coordinator does not select unless run.select.enabled is set, since its workers hold the " +
          `clones the tests need. To pick one patch per instance from its attempts, on a machine with them: patchloop select ${out}\n`,
      );
    }, 180_000);
  },
);
