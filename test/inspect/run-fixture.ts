import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import type { ChatMessage } from "../../src/models/types.js";

/** One step of a fixture trajectory: the reply, its command, and what came back. */
export interface FixtureStep {
  thought: string;
  command: string | null;
  output: string;
  returncode?: number;
  timedOut?: boolean;
  formatError?: boolean;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface FixtureInstance {
  id: string;
  exitStatus: Trajectory["info"]["exit_status"];
  steps: FixtureStep[];
  submission: string;
  wallSeconds: number;
}

export const SYSTEM_PROMPT = "You are a careful software engineer. Reply with one ```bash block.";

/** A patchloop-1 trajectory as the agent writes it (backticks protocol, `extra` bookkeeping). */
export function patchloopTrajectory(inst: FixtureInstance): Trajectory {
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: `Fix the issue in ${inst.id}.` },
  ];
  inst.steps.forEach((s, i) => {
    const content = s.command === null ? s.thought : `${s.thought}\n\n\`\`\`bash\n${s.command}\n\`\`\``;
    messages.push({
      role: "assistant",
      content,
      extra: {
        actions: s.command === null ? [] : [{ command: s.command }],
        usage: { prompt_tokens: s.prompt_tokens, completion_tokens: s.completion_tokens },
        finish_reason: "stop",
        cost: 0.001 * (i + 1),
        step: i + 1,
      },
    });
    const extra: Record<string, unknown> = s.formatError
      ? { format_error: true, step: i + 1 }
      : { returncode: s.returncode ?? 0, timed_out: s.timedOut ?? false, step: i + 1 };
    messages.push({ role: "user", content: s.output, extra });
  });
  const prompt = inst.steps.reduce((t, s) => t + s.prompt_tokens, 0);
  const completion = inst.steps.reduce((t, s) => t + s.completion_tokens, 0);
  return {
    trajectory_format: "patchloop-1",
    info: {
      exit_status: inst.exitStatus,
      exit_message: inst.exitStatus === "LimitsExceeded" ? "step limit 5 reached" : null,
      submission: inst.submission,
      model_stats: {
        api_calls: inst.steps.length,
        prompt_tokens: prompt,
        completion_tokens: completion,
        cost: 0.25,
      },
      config: {},
      versions: { patchloop: "0.1.0" },
      timing: {
        started_at: "2025-01-01T00:00:00Z",
        ended_at: "2025-01-01T00:01:00Z",
        wall_seconds: inst.wallSeconds,
      },
      instance_id: inst.id,
      model_name: "openai/test-model",
    },
    messages,
  };
}

const step = (thought: string, command: string | null, output: string, extra: Partial<FixtureStep> = {}) => ({
  thought,
  command,
  output,
  prompt_tokens: 1000,
  completion_tokens: 50,
  ...extra,
});

export const XSS = "<script>alert(1)</script>";

/** The four instances of the fixture run. */
export const INSTANCES: FixtureInstance[] = [
  {
    id: "django__django-11099",
    exitStatus: "Submitted",
    wallSeconds: 42.5,
    submission: "diff --git a/v.py b/v.py\n--- a/v.py\n+++ b/v.py\n@@ -1 +1 @@\n-old = 1\n+new = 2\n",
    steps: [
      step(
        "Look at the validator.",
        "grep -n regex django/core/validators.py",
        "12: regex = r'^[\\w.@+-]+$'",
        {
          prompt_tokens: 1234,
          completion_tokens: 56,
        },
      ),
      step("I forgot the block.", null, "Format error: reply with exactly one ```bash block.", {
        formatError: true,
      }),
      step("Run the slow tests.", "python -m pytest tests", "partial output", {
        timedOut: true,
        returncode: -1,
      }),
    ],
  },
  {
    id: "django__django-12345",
    exitStatus: "Submitted",
    wallSeconds: 12,
    submission: "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n",
    steps: [
      step("Edit.", "sed -i s/a/b/ a.py", ""),
      step("Submit.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", ""),
    ],
  },
  {
    id: "psf__requests-2317",
    exitStatus: "Submitted",
    wallSeconds: 30,
    submission: `diff --git a/r.py b/r.py\n--- a/r.py\n+++ b/r.py\n@@ -1 +1 @@\n-x\n+html = "${XSS}"\n`,
    steps: [
      step(
        `The page prints ${XSS} verbatim.`,
        "cat page.html",
        `<html><body>${XSS}<img src=x onerror=alert(2)></body></html>`,
      ),
      step("Done.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", ""),
    ],
  },
  {
    id: "sympy__sympy-20590",
    exitStatus: "LimitsExceeded",
    wallSeconds: 95,
    submission: "",
    steps: [1, 2, 3, 4, 5].map((n) =>
      step(`Attempt ${n}.`, `python t${n}.py`, `Traceback ${n}`, { returncode: 1 }),
    ),
  },
];

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

function report(id: string, resolved: boolean, f2pFail: string[], p2pFail: string[]) {
  return {
    [id]: {
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved,
      tests_status: {
        FAIL_TO_PASS: { success: resolved ? ["test_fixed"] : [], failure: f2pFail },
        PASS_TO_PASS: { success: ["test_old_a", "test_old_b"], failure: p2pFail },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    },
  };
}

/**
 * Writes a run folder in the `patchloop swebench -o DIR` layout with an evaluation beside it:
 * per-instance report.json files for three instances and a harness run summary covering requests.
 * The folder is a fresh temp folder, or `<parent>/run` when `parent` is given.
 */
export function makeRunFolder(parent?: string): string {
  const dir = parent ? join(parent, "run") : mkdtempSync(join(tmpdir(), "patchloop-inspect-run-"));
  mkdirSync(dir, { recursive: true });
  const preds: Record<string, unknown> = {};
  for (const inst of INSTANCES) {
    write(join(dir, inst.id, `${inst.id}.traj.json`), patchloopTrajectory(inst));
    preds[inst.id] = {
      instance_id: inst.id,
      model_name_or_path: "openai/test-model",
      model_patch: inst.submission,
    };
  }
  write(join(dir, "preds.json"), preds);
  // run.json as a resumed batch leaves it: django-12345 was run twice (its first attempt's calls
  // and cost under earlier_calls / earlier_cost).
  write(join(dir, "run.json"), {
    run_format: "patchloop-run-1",
    state: "finished",
    started_at: "2025-01-01T00:00:00Z",
    config: { model: { model_name: "openai/test-model", api_key_env: null } },
    info: { config_sources: ['built-in config "swebench_backticks"', "-c agent.step_limit=5"] },
    instances: {
      "django__django-11099": { exit_status: "Submitted", api_calls: 3, cost: 0.25 },
      "django__django-12345": {
        exit_status: "Submitted",
        api_calls: 2,
        cost: 0.25,
        earlier_calls: 4,
        earlier_cost: 0.5,
      },
      "psf__requests-2317": { exit_status: "Submitted", api_calls: 2, cost: 0.25 },
      "sympy__sympy-20590": { exit_status: "LimitsExceeded", api_calls: 5, cost: 0.25 },
    },
  });
  write(
    join(dir, "exit_statuses.yaml"),
    "Submitted:\n- django__django-11099\n- django__django-12345\n- psf__requests-2317\nLimitsExceeded:\n- sympy__sympy-20590\n",
  );
  write(
    join(dir, "eval/run1/django__django-11099/report.json"),
    report("django__django-11099", true, [], []),
  );
  write(join(dir, "eval/run1/django__django-11099/test_output.txt"), "+ : '>>>>> Start Test Output'\n");
  write(join(dir, "eval/run1/django__django-11099/run_instance.log"), "graded: RESOLVED_FULL\n");
  write(
    join(dir, "eval/run1/django__django-12345/report.json"),
    report("django__django-12345", false, [], ["test_old_c (model.Tests)"]),
  );
  write(
    join(dir, "eval/run1/sympy__sympy-20590/report.json"),
    report("sympy__sympy-20590", false, ["test_symbol_slots"], []),
  );
  write(join(dir, "eval/openai__test-model.run1.json"), {
    total_instances: 4,
    resolved_ids: ["psf__requests-2317"],
    unresolved_ids: [],
    error_ids: [],
    empty_patch_ids: [],
    schema_version: 2,
  });
  return dir;
}

/** Hostile text a selection line carries (the judge's answer, the reason): shown as text only. */
export const SELECTION_XSS = '<img src=x onerror="alert(3)"><script>alert(4)</script>';

const patchOf = (name: string) =>
  `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -1 +1 @@\n-a\n+${name}\n`;

/** One attempt of the attempts fixture: its exit, patch and number of steps. */
interface FixtureAttempt {
  exitStatus: Trajectory["info"]["exit_status"];
  submission: string;
  steps: number;
}

/** The attempts of the fixture run, by instance id, then attempt number. */
export const ATTEMPTS: Record<string, Record<number, FixtureAttempt>> = {
  // Selected by selection.jsonl: attempt 2.
  "django__django-11099": {
    1: { exitStatus: "Submitted", submission: patchOf("one.py"), steps: 2 },
    2: { exitStatus: "Submitted", submission: patchOf("two_longer.py"), steps: 4 },
    3: { exitStatus: "LimitsExceeded", submission: "", steps: 5 },
  },
  // No selection line: run.json's standing_attempt 2.
  "sympy__sympy-20590": {
    1: { exitStatus: "LimitsExceeded", submission: "", steps: 5 },
    2: { exitStatus: "Submitted", submission: patchOf("s.py"), steps: 3 },
  },
  // Neither: attempt 1; attempt 3 is known only from run.json (no trajectory).
  "psf__requests-2317": {
    1: { exitStatus: "Submitted", submission: patchOf("r.py"), steps: 2 },
    2: { exitStatus: "Submitted", submission: patchOf("r.py"), steps: 3 },
  },
};

/**
 * Writes a run folder of a batch with `run.attempts` 3 (`DIR/<id>/attempt-<k>/<id>.traj.json`,
 * run.json with `standing_attempt` and `attempts`), evaluated (`eval/patchloop-run/`, its
 * attempts.json and the attempt runs `patchloop-run-attempt-<k>`) and selected (selection.jsonl).
 * Each attempt costs $0.01 per step. The main evaluation graded preds.json before the selection
 * (attempt 1 of django, unresolved); attempts.json says attempt 2 resolves it.
 */
export function makeAttemptsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-inspect-attempts-"));
  const attempts: Record<string, unknown> = {};
  for (const [id, byK] of Object.entries(ATTEMPTS)) {
    for (const [k, a] of Object.entries(byK)) {
      const t = patchloopTrajectory({
        id,
        exitStatus: a.exitStatus,
        submission: a.submission,
        wallSeconds: 10 * Number(k),
        steps: Array.from({ length: a.steps }, (_, i) => step(`Step ${i + 1}.`, `ls ${i}`, "ok")),
      });
      t.info.model_stats.cost = 0.01 * a.steps;
      t.info.attempt_number = Number(k);
      write(join(dir, id, `attempt-${k}`, `${id}.traj.json`), t);
      attempts[`${id}/attempt-${k}`] = {
        exit_status: a.exitStatus,
        api_calls: a.steps,
        cost: 0.01 * a.steps,
      };
    }
  }
  attempts["psf__requests-2317/attempt-3"] = { exit_status: "EnvironmentError", api_calls: 0, cost: 0 };
  const django = ATTEMPTS["django__django-11099"]!;
  write(join(dir, "preds.json"), {
    "django__django-11099": { instance_id: "django__django-11099", model_patch: django[2]!.submission },
  });
  write(join(dir, "run.json"), {
    run_format: "patchloop-run-1",
    state: "finished",
    config: { model: { model_name: "openai/test-model" }, run: { attempts: 3 } },
    info: {},
    instances: {
      "django__django-11099": { exit_status: "Submitted", api_calls: 11, cost: 0.11, standing_attempt: 1 },
      "sympy__sympy-20590": { exit_status: "Submitted", api_calls: 8, cost: 0.08, standing_attempt: 2 },
      "psf__requests-2317": { exit_status: "Submitted", api_calls: 5, cost: 0.05 },
    },
    attempts,
  });
  write(
    join(dir, "eval/patchloop-run/django__django-11099/report.json"),
    report("django__django-11099", false, ["test_x"], []),
  );
  write(
    join(dir, "eval/patchloop-run/sympy__sympy-20590/report.json"),
    report("sympy__sympy-20590", true, [], []),
  );
  write(
    join(dir, "eval/patchloop-run-attempt-1/django__django-11099/report.json"),
    report("django__django-11099", false, ["test_x"], []),
  );
  const later = join(dir, "eval/patchloop-run-attempt-2/django__django-11099/report.json");
  write(later, report("django__django-11099", true, [], []));
  utimesSync(later, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
  write(join(dir, "eval/patchloop-run/attempts.json"), {
    instances: [
      { instance_id: "django__django-11099", attempts: { 1: "unresolved", 2: "resolved", 3: "empty" } },
      { instance_id: "sympy__sympy-20590", attempts: { 1: "empty", 2: "resolved" } },
    ],
    total: {},
  });
  const selection = {
    instance_id: "django__django-11099",
    candidates: [
      {
        index: 0,
        source: "attempt-1",
        exit_status: "Submitted",
        patch_sha256: "a",
        status: "patch",
        group: 1,
        regression: { tested: true, broke: ["test_a (t.Tests)"], kept: 3, cached: false },
      },
      {
        index: 1,
        source: "attempt-2",
        exit_status: "Submitted",
        patch_sha256: "b",
        status: "patch",
        group: 2,
        regression: { tested: true, broke: [], kept: 4, cached: true },
        reproduction: { passed: 2, of: 2, cached: false },
      },
      { index: 2, source: "attempt-3", patch_sha256: null, status: "empty", dropped: "the patch is empty" },
    ],
    groups: [
      { group: 1, members: [0], representative: 0 },
      { group: 2, members: [1], representative: 1 },
    ],
    judge: {
      offered: [
        { number: 1, candidate: 0 },
        { number: 2, candidate: 1 },
      ],
      answer: `${SELECTION_XSS} 2`,
      chose: 1,
    },
    selected: 1,
    reason: `attempt 2 broke no test ${SELECTION_XSS}`,
    steps: ["3 candidates, 1 dropped (empty)", "regression: candidate 0 broke 1 test"],
    problems: [],
    seconds: 3,
  };
  write(join(dir, "selection.jsonl"), `${JSON.stringify(selection)}\n`);
  return dir;
}
