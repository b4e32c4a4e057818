import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
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
  promptTokens: number;
  completionTokens: number;
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
        usage: { prompt_tokens: s.promptTokens, completion_tokens: s.completionTokens },
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
  const prompt = inst.steps.reduce((t, s) => t + s.promptTokens, 0);
  const completion = inst.steps.reduce((t, s) => t + s.completionTokens, 0);
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
  promptTokens: 1000,
  completionTokens: 50,
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
          promptTokens: 1234,
          completionTokens: 56,
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
