import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { runBatch } from "../../src/batch/run-batch.js";
import type { BatchEvent } from "../../src/batch/types.js";
import { attemptConfig } from "../../src/config/attempt-variants.js";
import { ConfigError } from "../../src/config/errors.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel, type ScriptedResponse } from "../../src/models/scripted.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson } from "./helpers.js";

const attemptTraj = (out: string, id: string, k: number) =>
  readJson<Trajectory>(join(out, id, `attempt-${k}`, `${id}.traj.json`));
const preds = (out: string) => readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));

/** What each attempt of each instance does, by attempt number: a fix, another fix, or nothing. */
type Plan = Record<number, "fix" | "fix-other" | "nothing">;
const FIX_OTHER = "sed -i 's/ - b  # BUG$/ + b  # fixed/' $(git grep -l -e '# BUG$')";
function scriptOf(what: Plan[number]): ScriptedResponse[] {
  if (what === "fix") return [bash(FIX_COMMAND, 0.02), bash(SUBMIT_COMMAND, 0.02)];
  if (what === "fix-other") return [bash(FIX_OTHER, 0.02), bash(SUBMIT_COMMAND, 0.02)];
  return [bash("true", 0.01), bash("true", 0.01)];
}

function models(plan: Plan) {
  const made = new Map<string, ScriptedModel>();
  return {
    made,
    modelFor: (row: SwebenchInstance, attempt?: number) => {
      const m = new ScriptedModel(scriptOf(plan[attempt ?? 1]));
      made.set(`${row.instance_id}/${attempt}`, m);
      return m;
    },
  };
}

describe("attempts per instance (run.attempts), scripted model, local environment", () => {
  let f: FixtureInstances;
  let rows: SwebenchInstance[];
  beforeAll(() => {
    f = buildFixtureInstances(mkdtempSync(join(tmpdir(), "patchloop-attempts-")), { count: 2, repos: 1 });
    rows = f.rows;
  });
  afterAll(() => rmSync(join(f.reposDir, ".."), { recursive: true, force: true }));

  it("runs N attempts each in its own folder and work tree, variants applied, prompts identical, attempt 1 first", async () => {
    const out = join(tempDir(), "run");
    const config = localSwebenchConfig([
      "agent.step_limit=2",
      "run.attempts=3",
      "run.attempt_variants=[{model: {model_kwargs: {temperature: 0.1}}}, {model: {model_kwargs: {temperature: 0.9}}, agent: {step_limit: 3}}]",
    ]);
    const m = models({ 1: "fix", 2: "fix-other", 3: "nothing" });
    const events: string[] = [];
    const result = await runBatch({
      config,
      instances: rows.slice(0, 1),
      outputDir: out,
      workers: 3,
      reposDir: f.reposDir,
      modelFor: m.modelFor,
      onEvent: (e: BatchEvent) => {
        if (e.type === "instance_start") events.push(`start ${e.attempt}`);
        if (e.type === "agent" && e.event.type === "model_call") events.push(`call ${e.attempt}`);
      },
    });
    const id = rows[0].instance_id;
    expect(result.stoppedBy).toBeNull();
    expect(result.pending).toEqual([]);
    expect(result.outcomes.map((o) => [o.attempt_number, o.exit_status]).sort()).toEqual([
      [1, "Submitted"],
      [2, "Submitted"],
      [3, "LimitsExceeded"],
    ]);
    // Attempt 1 alone until its first request is answered; then the others start.
    expect(events.slice(0, 2)).toEqual(["start 1", "call 1"]);
    expect(events.filter((e) => e.startsWith("start")).sort()).toEqual(["start 1", "start 2", "start 3"]);
    // Each attempt: its own trajectory, number and variant (cycled: attempt 3 takes variant 1 again).
    const t = [1, 2, 3].map((k) => attemptTraj(out, id, k));
    expect(t.map((x) => x.info.attempt_number)).toEqual([1, 2, 3]);
    const cfg = t.map(
      (x) =>
        x.info.config as { model: { model_kwargs: { temperature: number } }; agent: { step_limit: number } },
    );
    expect(cfg.map((c) => [c.model.model_kwargs.temperature, c.agent.step_limit])).toEqual([
      [0.1, 2],
      [0.9, 3],
      [0.1, 2],
    ]);
    // Attempt 3 ran its step limit of 2 (variant 1's), so it made 2 calls.
    expect(t[2].info.model_stats.api_calls).toBe(2);
    expect(t[0].info.submission).toBe(rows[0].patch);
    expect(t[1].info.submission).not.toBe(rows[0].patch);
    expect(t[1].info.submission).toContain("+ b  # fixed");
    // Nothing of one attempt in another: attempt 3 made no change in its work tree although 1 and 2 did.
    expect(t[2].info.submission).toBe("");
    // The prompt the attempts share is the same but for the work tree's path: locally, attempts that
    // run at once cannot share one (bwrap and containers mount each at the same path: bwrap-batch.test.ts).
    const first = [1, 2, 3].map((k) =>
      JSON.stringify(m.made.get(`${id}/${k}`)?.calls[0].messages.slice(0, 2)).replace(
        /\/tmp\/patchloop\/acme__lib0-1(\.\d+)?/g,
        "WORKTREE",
      ),
    );
    expect(first[0]).toContain("WORKTREE");
    // Attempt 3 has attempt 1's variant: the same prompt; attempt 2's variant changes the step budget it is told.
    expect(first[2]).toBe(first[0]);
    expect(first[1]).toBe(first[0].replace("You have 2 steps in all.", "You have 3 steps in all."));
    // preds.json: the attempt that stands for the instance (the first that did not fail).
    expect(preds(out)[id].model_patch).toBe(rows[0].patch);
    const run = readJson<{
      instances: Record<string, Record<string, unknown>>;
      attempts: Record<string, Record<string, unknown>>;
    }>(join(out, "run.json"));
    expect(Object.keys(run.attempts).sort()).toEqual([1, 2, 3].map((k) => `${id}/attempt-${k}`));
    expect(run.instances[id]).toEqual({
      exit_status: "Submitted",
      api_calls: 6,
      cost: expect.closeTo(0.1, 9),
      standing_attempt: 1,
    });
    expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(`Submitted:\n  - ${id}\n`);
    expect(existsSync(join(out, id, `${id}.traj.json`))).toBe(false);

    // Run again: nothing runs (every attempt is final).
    const again = await runBatch({
      config,
      instances: rows.slice(0, 1),
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: () => {
        throw new Error("nothing should run");
      },
    });
    expect([again.outcomes.length, again.skipped]).toEqual([0, [id]]);
    expect(again.statuses).toEqual({ [id]: "Submitted" });
  });

  it("stops starting attempts once K agree (run.attempt_policy.agree), and says why in run.log", async () => {
    const out = join(tempDir(), "agree");
    const config = localSwebenchConfig([
      "agent.step_limit=2",
      "run.attempts=4",
      "run.attempt_policy.agree=2",
    ]);
    const m = models({ 1: "fix", 2: "fix", 3: "fix-other", 4: "fix-other" });
    const result = await runBatch({
      config,
      instances: rows,
      outputDir: out,
      workers: 1,
      reposDir: f.reposDir,
      modelFor: m.modelFor,
    });
    for (const row of rows) {
      expect(existsSync(join(out, row.instance_id, "attempt-2"))).toBe(true);
      expect(existsSync(join(out, row.instance_id, "attempt-3"))).toBe(false);
    }
    expect(result.outcomes).toHaveLength(4);
    expect(result.pending).toEqual([]);
    expect(result.notStarted).toEqual([]);
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toContain(
      `${rows[0].instance_id}: no further attempt starts: 2 attempts agree on one patch (run.attempt_policy.agree 2)`,
    );
    // A second run starts nothing either: the policy is read back from the trajectories.
    const again = await runBatch({
      config,
      instances: rows,
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: m.modelFor,
    });
    expect(again.outcomes).toHaveLength(0);
    expect(again.skipped.sort()).toEqual(rows.map((r) => r.instance_id).sort());
  });

  it("stops at the instance's cost limit, and replaces failed attempts up to replace_failed", async () => {
    const out = join(tempDir(), "budget");
    const config = localSwebenchConfig([
      "agent.step_limit=2",
      "run.attempts=2",
      "run.attempt_policy.replace_failed=1",
    ]);
    // Attempt 1 fails (no patch): attempt 3 replaces it; attempt 2 and 3 fix.
    const m = models({ 1: "nothing", 2: "fix", 3: "fix" });
    const result = await runBatch({
      config,
      instances: rows.slice(0, 1),
      outputDir: out,
      workers: 1,
      reposDir: f.reposDir,
      modelFor: m.modelFor,
    });
    const id = rows[0].instance_id;
    // The replacement runs next, beside the instance's other attempts.
    expect(result.outcomes.map((o) => o.attempt_number)).toEqual([1, 3, 2]);
    expect(existsSync(join(out, id, "attempt-4"))).toBe(false);
    // The standing patch is attempt 2's (attempt 1 failed).
    expect(preds(out)[id].model_patch).toBe(rows[0].patch);

    const capped = join(tempDir(), "capped");
    const costly = localSwebenchConfig([
      "agent.step_limit=2",
      "run.attempts=3",
      "run.attempt_policy.cost_limit=0.03",
    ]);
    const r2 = await runBatch({
      config: costly,
      instances: rows.slice(0, 1),
      outputDir: capped,
      workers: 1,
      reposDir: f.reposDir,
      modelFor: models({ 1: "fix", 2: "fix", 3: "fix" }).modelFor,
    });
    expect(r2.outcomes.map((o) => o.attempt_number)).toEqual([1]);
    expect(r2.pending).toEqual([]);
    expect(readFileSync(join(capped, "run.log"), "utf8")).toContain(
      `${id}: no further attempt starts: its attempts cost $0.0400, run.attempt_policy.cost_limit is $0.03`,
    );
  });

  it("an interrupted attempt is the only one a re-run starts", async () => {
    const out = join(tempDir(), "resume");
    const config = localSwebenchConfig(["agent.step_limit=3", "run.attempts=3"]);
    const abort = new AbortController();
    const id = rows[0].instance_id;
    // Attempt 2 hangs in its second step until the batch is interrupted; 1 and 3 finish.
    const hang: ScriptedResponse[] = [bash(FIX_COMMAND, 0.02), bash("sleep 30", 0.02), bash(SUBMIT_COMMAND)];
    const first = await runBatch({
      config,
      instances: rows.slice(0, 1),
      outputDir: out,
      workers: 3,
      reposDir: f.reposDir,
      signal: abort.signal,
      modelFor: (_row, k) => new ScriptedModel(k === 2 ? hang : scriptOf("fix")),
      onEvent: (e) => {
        if (e.type === "instance_end" && e.outcome.attempt_number === 3) setTimeout(() => abort.abort(), 0);
      },
    });
    const ended = Object.fromEntries(first.outcomes.map((o) => [o.attempt_number, o.exit_status]));
    expect(ended).toEqual({ 1: "Submitted", 2: "Interrupted", 3: "Submitted" });
    expect(first.pending).toEqual([id]);
    const ran: number[] = [];
    const second = await runBatch({
      config,
      instances: rows.slice(0, 1),
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: (_row, k) => {
        ran.push(k ?? 0);
        return new ScriptedModel(scriptOf("fix"));
      },
    });
    expect(ran).toEqual([2]);
    expect(second.pending).toEqual([]);
    expect(attemptTraj(out, id, 2).info.exit_status).toBe("Submitted");
    // The caps still count what the interrupted run of attempt 2 spent.
    const run = readJson<{ attempts: Record<string, { earlier_calls?: number }> }>(join(out, "run.json"));
    expect(run.attempts[`${id}/attempt-2`].earlier_calls).toBe(2);
  });
});

describe("run.attempt_variants are checked strictly", () => {
  it("names the variant and the key that is wrong", () => {
    expect(() =>
      localSwebenchConfig(["run.attempts=2", "run.attempt_variants=[{model: {temprature: 1}}]"]),
    ).toThrow(ConfigError);
    expect(() =>
      localSwebenchConfig(["run.attempts=2", "run.attempt_variants=[{model: {temprature: 1}}]"]),
    ).toThrow(
      "run.attempt_variants[0]: invalid config:\n  - unknown key model.temprature (from run.attempt_variants[0]). Valid keys in model:",
    );
    expect(() => localSwebenchConfig(["run.attempt_variants=[{}, {run: {attempts: 3}}]"])).toThrow(
      "run.attempt_variants[1] sets run.attempts: those hold for the whole run; set them outside the variants",
    );
    expect(() => localSwebenchConfig(["run.attempt_variants=['no-such-config']"])).toThrow(
      /run\.attempt_variants\[0\]: /,
    );
  });

  it("reads a named config into the variant, and attempt k takes variant (k-1) mod length", () => {
    const config = localSwebenchConfig([
      "run.attempts=3",
      "run.attempt_variants=[{model: {model_name: other}}, swebench_backticks]",
    ]);
    const second = config.run.attempt_variants[1] as Record<string, unknown>;
    expect(typeof second).toBe("object");
    expect(attemptConfig(config, 1).model.model_name).toBe("other");
    expect(attemptConfig(config, 2).agent.protocol).toBe("backticks");
    expect(attemptConfig(config, 3).model.model_name).toBe("other");
    expect(attemptConfig(config, 2).run.attempts).toBe(3);
  });
});
