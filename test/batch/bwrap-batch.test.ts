import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBatch } from "../../src/batch/run-batch.js";
import { tokensReport } from "../../src/cli/tokens.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { describeWithEngine } from "../support/engines.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
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

  it("attempts of one instance see the same prompt in bwrap (each at /testbed), so attempts 2..N prefill next to nothing", async () => {
    const f = fixtures[0];
    const out = join(tempDir(), "attempts");
    const models: ScriptedModel[] = [];
    const config = localSwebenchConfig(["environment.environment_class=bwrap", "run.attempts=3"]);
    const result = await runBatch({
      config,
      instances: f.rows.slice(0, 1),
      outputDir: out,
      workers: 3,
      reposDir: f.reposDir,
      modelFor: () => {
        const m = new ScriptedModel([bash(FIX_COMMAND), bash(SUBMIT_COMMAND)]);
        models.push(m);
        return m;
      },
    });
    expect(result.outcomes.map((o) => o.exit_status)).toEqual(["Submitted", "Submitted", "Submitted"]);
    const first = models.map((m) => JSON.stringify(m.calls[0].messages));
    expect(first[0]).toContain("/testbed");
    expect(new Set(first).size).toBe(1);
    const report = await tokensReport([out], config, { tokenizer: "estimate" });
    const id = f.rows[0].instance_id;
    expect(report.attempts).toHaveLength(1);
    const a = report.attempts[0];
    expect([a.instance, a.attempts]).toEqual([join(out, id), [1, 2, 3]]);
    expect(a.first_request_tokens[1]).toBe(a.first_request_tokens[0]);
    // Only the last, partly filled block of the shared prompt is prefilled again (block-cache.ts).
    expect(a.first_request_prefill[1]).toBeLessThan(16);
    expect(a.later_over_first).toBeLessThanOrEqual(0.1);
  });
});
