import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ScriptedModel } from "../../../src/models/scripted.js";
import { runBatch } from "../../../src/swebench/batch/run-batch.js";
import { describeWithEngine } from "../../support/engines.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../../support/fixture-instances.js";
import { tempDir } from "../../support/tmp.js";
import { bash, localSwebenchConfig, readJson, workRootsOf } from "./helpers.js";

/**
 * The clones lie in /var/tmp or in /tmp: either way the sandbox does not show them (its /tmp and
 * /var/tmp are its own); the checkouts borrow only the history cache's entries, shown read-only.
 */
const PLACES = [
  { parent: "/var/tmp", denied: /No such file or directory/ },
  { parent: tmpdir(), denied: /No such file or directory/ },
];

describeWithEngine("bwrap", "batch in bwrap: each instance's checkout in its own sandbox", () => {
  const fixtures: FixtureInstances[] = [];
  beforeAll(() => {
    for (const { parent } of PLACES)
      fixtures.push(
        buildFixtureInstances(mkdtempSync(join(parent, "patchloop-batch-bwrap-")), { count: 2, repos: 1 }),
      );
  });
  afterAll(() => {
    for (const f of fixtures) rmSync(join(f.reposDir, ".."), { recursive: true, force: true });
  });

  it.each(PLACES.map((p, i) => [p.parent, i] as const))(
    "clones in %s: git works inside the sandbox, the clone cannot be reached",
    async (_parent, i) => {
      const f = fixtures[i];
      const out = join(tempDir(), "run");
      const models: ScriptedModel[] = [];
      const result = await runBatch({
        config: localSwebenchConfig(["environment.environment_class=bwrap"]),
        instances: f.rows,
        outputDir: out,
        workers: 2,
        reposDir: f.reposDir,
        modelFor: () => {
          const m = new ScriptedModel([
            bash(`touch ${join(f.reposDir, "acme__lib0", "escaped")} 2>&1; ${FIX_COMMAND}`),
            bash(SUBMIT_COMMAND),
          ]);
          models.push(m);
          return m;
        },
      });
      expect(Object.values(result.statuses)).toEqual(["Submitted", "Submitted"]);
      const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
      for (const row of f.rows) expect(preds[row.instance_id].model_patch).toBe(row.patch);
      expect(models[0].calls[1].messages.at(-1)?.content).toMatch(PLACES[i].denied);
      expect(workRootsOf(tmpdir(), process.pid)).toEqual([]);
    },
  );
});
