import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { localBatchArgs, useFixtureBatch } from "../batch/helpers.js";
import { runPatchloop } from "../support/cli.js";
import { FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { havePytest } from "../support/pytest-skips.js";
import { tempDir } from "../support/tmp.js";

/**
 * One bash command the fake model sends at every step; it ends each fixture instance differently,
 * by the number of its module (`pkg<r>/op<k>.py`): 1 fixes and submits (resolved), 2 submits a wrong
 * fix (the failing test still fails), 3 a fix that breaks the passing test, 4 never submits (step
 * limit), 5 submits nothing (empty patch), 6 submits text that is not a diff (does not apply).
 */
const ENDINGS = [
  "n=$(( $(cat .git/report_steps 2>/dev/null || echo 0) + 1 )); echo $n > .git/report_steps",
  "k=$(ls pkg*/op*.py | head -1 | sed 's/[^0-9]//g; s/^.//')",
  `if [ $n -eq 1 ]; then case $k in 1) ${FIX_COMMAND};; 2) sed -i 's/ - b  # BUG$/ * b/' pkg*/op*.py;; 3) sed -i 's/ - b  # BUG$/ + b if a else 1/' pkg*/op*.py;; esac; echo step one`,
  "elif [ $k -eq 4 ]; then echo still looking",
  "elif [ $k -eq 6 ]; then echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo 'this is not a diff'",
  `else ${SUBMIT_COMMAND}; fi`,
].join("; ");

describe.skipIf(!havePytest())("patchloop report on a graded batch run folder", () => {
  const b = useFixtureBatch(
    "patchloop-report-",
    { count: 6, repos: 2 },
    {
      defaultBehaviour: {
        type: "reply",
        content: "step",
        toolCalls: [{ name: "bash", arguments: { command: ENDINGS } }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
    },
    false,
  );
  let out: string;

  beforeAll(async () => {
    // A difficulty label on each row, as SWE-bench Verified has.
    const rows = readFileSync(b.f.datasetPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    writeFileSync(
      b.f.datasetPath,
      `${rows.map((r, i) => JSON.stringify({ ...r, difficulty: i < 3 ? "<15 min fix" : "15 min - 1 hour" })).join("\n")}\n`,
    );
    out = join(b.root, "run");
    const r = await runPatchloop(
      [
        "swebench",
        ...localBatchArgs(b.f.datasetPath, b.server.url, b.f.reposDir),
        "-c",
        "agent.step_limit=4",
        "-w",
        "2",
        "-o",
        out,
        "--evaluate",
      ],
      { PATCHLOOP_ENV_CHECK_CACHE: join(b.root, "env-checks") },
    );
    if (r.code !== 0 && r.code !== 1)
      throw new Error(`the batch failed (${r.code}): ${r.stderr}\n${r.stdout}`);
  }, 300_000);

  it("--json: where each instance ended, per repository and difficulty, files beside the gold's", async () => {
    const r = await runPatchloop(["report", out, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.format).toBe("patchloop-report-1");
    const ended = Object.fromEntries(
      rep.per_instance.map((i: { instance_id: string; category: string }) => [i.instance_id, i.category]),
    );
    expect(ended).toEqual({
      "acme__lib0-1": "resolved",
      "acme__lib1-2": "still_failing",
      "acme__lib0-3": "broke_passing",
      "acme__lib1-4": "step_limit",
      "acme__lib0-5": "empty_patch",
      "acme__lib1-6": "not_applied",
    });
    expect([rep.instances, rep.resolved, rep.resolved_rate]).toEqual([6, 1, 1 / 6]);
    expect(rep.per_repository).toEqual([
      { repository: "acme/lib0", instances: 3, resolved: 1, rate: 1 / 3 },
      { repository: "acme/lib1", instances: 3, resolved: 0, rate: 0 },
    ]);
    expect(rep.per_difficulty).toEqual([
      { difficulty: "15 min - 1 hour", instances: 3, resolved: 0, rate: 0 },
      { difficulty: "<15 min fix", instances: 3, resolved: 1, rate: 1 / 3 },
    ]);
    expect(rep.outcomes.map((o: { category: string; count: number }) => `${o.category} ${o.count}`)).toEqual([
      "step_limit 1",
      "empty_patch 1",
      "not_applied 1",
      "still_failing 1",
      "broke_passing 1",
      "resolved 1",
    ]);
    expect(rep.files.note).toBe(
      "For analysis after the run: the gold patch comes from the dataset row and is never shown to the model.",
    );
    expect(rep.files.per_instance).toContainEqual({
      instance_id: "acme__lib0-3",
      category: "broke_passing",
      patch_files: ["pkg0/op3.py"],
      gold_files: ["pkg0/op3.py"],
    });
    expect(rep.usage.all.steps).toMatchObject({ n: 6, max: 4 });
    expect(rep.usage.resolved.steps).toMatchObject({ n: 1, total: 2 });
    expect(rep.usage.per_resolved.steps).toBe(rep.usage.all.steps.total);
  });

  it("Markdown: the headline, the tables, and the gold patch's files said to be for analysis only", async () => {
    const r = await runPatchloop(["report", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("**1 of 6 instances resolved (16.7%)**; 6 graded.");
    expect(r.stdout).toContain("| acme/lib0 | 3 | 1 | 33.3% |");
    expect(r.stdout).toContain("| <15 min fix | 3 | 1 | 33.3% |");
    expect(r.stdout).toContain(
      "| not submitted | step limit | 1 | raise agent.step_limit, or find the loop in the trajectory |",
    );
    expect(r.stdout).toContain("| submitted | applied; the fix broke tests that passed | 1 |");
    expect(r.stdout).toContain("never shown to the model");
    expect(r.stdout).toMatch(/\| steps \(model calls\) \| 6 \| \d+ \|/);
  });

  it("the leaderboard: a dataset file needs --leaderboard; with it, the run's place on the dated snapshot", async () => {
    const plain = await runPatchloop(["report", out, "--json"]);
    const none = JSON.parse(plain.stdout).leaderboard;
    expect([none.snapshot_date, none.board, none.standing]).toEqual(["2025-12-10", null, null]);
    expect(none.notes[0]).toBe(
      `a run on ${b.f.datasetPath} (test): the snapshot has the SWE-bench Lite and Verified test leaderboards only; if its rows are one of those splits, say which with --leaderboard lite|verified`,
    );
    const r = await runPatchloop(["report", out, "--leaderboard", "lite"]);
    expect(r.code).toBe(0);
    const md = r.stdout.split("\n");
    const at = md.indexOf("## Against the public leaderboard");
    expect(md.slice(at + 3, at + 5)).toEqual([
      "On SWE-bench Lite this run resolves 1 of 300 (0.33%): rank 84 of 85 with the snapshot's 84 entries, below RAG + SWE-Llama 13B (1.00%, 2023-10-10) and level with RAG + ChatGPT 3.5 (0.33%, 2023-10-10). Top: ExpeRepair-v1.0 + Claude 4 Sonnet (60.33%, 2025-06-25); median entry 33.50%. Among the 8 entries with an open model: rank 9 of 9.",
      "Note: the run took 6 of the 300 instances; the leaderboard divides by all 300, so the 294 it did not take count as unresolved here (its rate on the instances it took, 16.67%, is not comparable).",
    ]);
    const bad = await runPatchloop(["report", out, "--leaderboard", "full"]);
    expect([bad.code, bad.stdout]).toEqual([2, ""]);
    expect(bad.stderr).toContain(
      "patchloop report: --leaderboard full: not a leaderboard of the snapshot; use one of lite, verified",
    );
  });

  it("a folder that is no run: exit 2 saying what to pass", async () => {
    const r = await runPatchloop(["report", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "no run.json, preds.json or trajectories here; pass the folder a run wrote (-o DIR)",
    );
  });
});

describe("patchloop report on the demo's folder", () => {
  it("reads the trajectory when there is no run.json, and says the run is not graded", async () => {
    const dir = join(tempDir(), "demo");
    const demo = await runPatchloop(["demo", "-o", dir, "--quiet"]);
    expect(demo.code).toBe(0);
    const r = await runPatchloop(["report", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Note: no run.json: the figures come from the trajectories.");
    expect(r.stdout).toContain("**0 of 1 instances resolved (0.0%)**; 0 graded.");
    expect(r.stdout).toContain("- submitted, not graded yet: textstats-1");
    expect(r.stdout).toMatch(/\| steps \(model calls\) \| 1 \| 6 \| 6 \| 6 \| 6 \| 6 \|/);
  });
});
