import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localBatchArgs, readJson, useFixtureBatch } from "../batch/helpers.js";
import { FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { bashReply as bash, havePytest, swebench } from "../support/swebench-command.js";
import { tempDir } from "../support/tmp.js";

/**
 * `swebench --attempts N --evaluate` (and `eval` of such a folder) grades every attempt's patch
 * (each distinct patch once) and reports first-attempt, any-attempt and selected resolution with
 * the cost per resolved instance (docs/attempts.md).
 */

describe.skipIf(!havePytest())("attempts graded by eval", () => {
  const b = useFixtureBatch("patchloop-attempts-eval-", { count: 1, repos: 1 });

  it("reports first, any and selected attempt resolved, and what a resolved instance cost", async () => {
    const id = b.f.rows[0].instance_id;
    const WRONG = "sed -i 's/ - b  # BUG$/ * b/' $(git grep -l -e '# BUG$')";
    // -w 1: the attempts run one after another, in order: a wrong fix, then the right one twice.
    b.server.enqueue(bash(WRONG), bash(SUBMIT_COMMAND), bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    b.server.enqueue(bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    const out = join(tempDir(), "run");
    const r = await swebench([
      ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
      "-o",
      out,
      "--attempts",
      "3",
      "-c",
      "run.select.enabled=false",
      "--evaluate",
    ]);
    expect(r.code, r.err).toBe(0);
    // preds.json holds the standing attempt (the first with a patch): the wrong one, unresolved;
    // nothing was selected, and neither the lines nor the totals say so.
    expect(r.out).toContain("Resolved 0/1 (0.0%)");
    expect(r.out).toContain(`  ${id}  1:. 2:R 3:R  standing (attempt 1) unresolved\n`);
    expect(r.out).toContain("first attempt resolved 0/1 (0.0%)  any attempt 1 (100.0%)  standing 0 (0.0%)\n");
    // Each eval line names the attempt it grades.
    expect(r.err).toContain(`[eval 1/1] ${id} (attempt 1, in preds.json) unresolved\n`);
    expect(r.err).toContain(`[eval 1/1] ${id} attempt 2 resolved\n`);
    // each attempt's grading counts from 1 again: a header line says what the lines count
    expect(r.err).toContain(
      `grading attempt 2: 1 patch (a patch equal to one already graded for its instance is not graded again)...\n[eval 1/1] ${id} attempt 2 resolved\n`,
    );
    expect(r.err).not.toContain(`[eval 1/1] ${id} attempt 3`);
    expect(r.out).toContain("per resolved instance: none resolved");
    const report = readJson<{ total: Record<string, unknown> }>(
      join(out, "eval", "patchloop-run", "attempts.json"),
    );
    expect(report.total).toMatchObject({
      instances: 1,
      first_attempt_resolved: 0,
      any_attempt_resolved: 1,
      selected_resolved: 0,
      cost_per_resolved: null,
    });
    // Attempt 3's patch is attempt 2's: graded once.
    expect(existsSync(join(out, "eval", "patchloop-run-attempt-2"))).toBe(true);
    expect(existsSync(join(out, "eval", "patchloop-run-attempt-3"))).toBe(false);
  });

  it("with --attempts N the batch selects at its end by default: the attempts' majority patch, graded resolved", async () => {
    const id = b.f.rows[0].instance_id;
    const WRONG = "sed -i 's/ - b  # BUG$/ * b/' $(git grep -l -e '# BUG$')";
    b.server.enqueue(bash(WRONG), bash(SUBMIT_COMMAND), bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    b.server.enqueue(bash(FIX_COMMAND), bash(SUBMIT_COMMAND));
    const out = join(tempDir(), "selected");
    const r = await swebench([
      ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
      "-o",
      out,
      "--attempts",
      "3",
      "--evaluate",
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`selection: a patch for 1 of 1 instances (${join(out, "selection.jsonl")})`);
    const line = JSON.parse(readFileSync(join(out, "selection.jsonl"), "utf8").trim()) as {
      instance_id: string;
      selected: number;
      candidates: Array<{ source: string }>;
    };
    expect(line.instance_id).toBe(id);
    expect(line.candidates[line.selected].source).not.toContain("attempt-1");
    expect(readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"))[id].model_patch).toBe(
      b.f.rows[0].patch,
    );
    expect(r.out).toContain(`  ${id}  1:. 2:R 3:R  selected (attempt 2) resolved\n`);
    expect(r.out).toContain(
      "first attempt resolved 0/1 (0.0%)  any attempt 1 (100.0%)  selected 1 (100.0%)\n",
    );
  });
});
