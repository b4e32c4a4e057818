import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBatch } from "../../src/batch/run-batch.js";
import { instanceImageName } from "../../src/dataset/images.js";
import { prepareWorkspace } from "../../src/instance/workspace.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import type { ChatMessage } from "../../src/models/types.js";
import { describeWithEngine, engineStatus } from "../support/engines.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { buildInstanceImage } from "../support/instance-image.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, trajectory } from "./helpers.js";

/**
 * What the model is shown must not depend on where this run's checkout happens to live: bwrap
 * shows the work tree at /testbed as the instance images do, and local batches use a stable
 * path, `<tmp>/patchloop/<instance id>`.
 */

let f: FixtureInstances;
let root = "";
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "patchloop-stable-"));
  f = buildFixtureInstances(root, { count: 2, repos: 1 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The system and first user message of each instance of a batch run with `environment`. */
async function firstMessages(extra: string[]): Promise<Record<string, ChatMessage[]>> {
  const out = join(tempDir(), "run");
  await runBatch({
    config: localSwebenchConfig(extra),
    instances: f.rows,
    outputDir: out,
    workers: 2,
    reposDir: f.reposDir,
    modelFor: () => new ScriptedModel([bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")]),
  });
  return Object.fromEntries(
    f.rows.map((r) => [r.instance_id, trajectory(out, r.instance_id).messages.slice(0, 2)]),
  );
}

const strip = (ms: ChatMessage[]) => ms.map((m) => ({ role: m.role, content: m.content }));

describe("stable paths of the work tree", () => {
  it("local: <tmp>/patchloop/<instance id>, the same in every run; a second holder gets <id>.2", async () => {
    const first = await firstMessages([]);
    const second = await firstMessages([]);
    for (const row of f.rows) {
      expect(String(first[row.instance_id][1].content)).toContain(
        join(tmpdir(), "patchloop", row.instance_id),
      );
      expect(strip(second[row.instance_id])).toEqual(strip(first[row.instance_id]));
    }
    const stable = tempDir();
    const a = await prepareWorkspace(f.reposDir, f.rows[0], stable, { stable: true });
    const b = await prepareWorkspace(f.reposDir, f.rows[0], stable, { stable: true });
    expect([a.dir, b.dir]).toEqual([
      join(stable, f.rows[0].instance_id),
      join(stable, `${f.rows[0].instance_id}.2`),
    ]);
    await a.remove();
    const c = await prepareWorkspace(f.reposDir, f.rows[0], stable, { stable: true });
    expect(c.dir).toBe(join(stable, f.rows[0].instance_id));
    await Promise.all([b.remove(), c.remove()]);
  });

  describeWithEngine("bwrap", "bwrap and docker", () => {
    it.skipIf(!engineStatus("docker").ok && process.env.CI !== "true")(
      "a batch in bwrap and one in docker over the same rows render byte-identical system and first user messages",
      async () => {
        for (const row of f.rows) buildInstanceImage(f, row, instanceImageName(row.instance_id), root);
        const inBwrap = await firstMessages(["environment.environment_class=bwrap"]);
        const inDocker = await firstMessages([
          "environment.environment_class=docker",
          "agent.diff_on_exit=false",
        ]);
        for (const row of f.rows) {
          expect(String(inBwrap[row.instance_id][1].content)).toContain("/testbed");
          expect(strip(inDocker[row.instance_id])).toEqual(strip(inBwrap[row.instance_id]));
        }
      },
    );
  });
});
