import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  loadTrajectoryFile,
  normalizeTrajectory,
  TrajectoryFormatError,
} from "../../src/inspect/normalize.js";
import { TRAJECTORIES } from "../support/data.js";
import { INSTANCES, patchloopTrajectory, SYSTEM_PROMPT } from "./run-fixture.js";

describe("other scaffolds' trajectories (test/fixtures/trajectories)", () => {
  test("mini-swe-agent plain message list (local.traj.json)", async () => {
    const v = await loadTrajectoryFile(join(TRAJECTORIES, "miniswe.local.traj.json"));
    expect(v.source).toBe("mini-swe-agent-list");
    expect(v.instanceId).toBe("miniswe.local");
    expect(v.system?.chars).toBe(657);
    expect(v.firstUser?.text.startsWith("Please solve this issue: Blah blah blah")).toBe(true);
    expect(v.steps.map((s) => [s.thought, s.actions])).toEqual([
      ["Here be some dummy command:", [{ tool: null, text: "echo 'hello world'" }]],
      ["OK, now let me end this run.", [{ tool: null, text: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" }]],
    ]);
    expect(v.steps[0].observations).toEqual([
      {
        text: "<returncode>0</returncode>\n<output>\nhello world\n</output>",
        returncode: 0,
        timedOut: false,
        formatError: false,
      },
    ]);
    expect(v.exitStatus).toBe("Submitted");
    expect(v.submission).toBe("");
    expect([v.prompt_tokens, v.completion_tokens, v.cost, v.api_calls, v.model]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  test("mini-swe-agent plain list, longer (github_issue.traj.json): submission derived from the last output", async () => {
    const v = await loadTrajectoryFile(join(TRAJECTORIES, "miniswe.github_issue.traj.json"));
    expect(v.steps).toHaveLength(10);
    expect(v.firstUser?.chars).toBe(2331);
    expect(v.steps[0].observations[0].returncode).toBe(1);
    expect(v.steps[1].actions).toEqual([{ tool: null, text: "ls -la" }]);
    expect(v.steps[1].thought).toBe(
      "I need to find the correct path to the file. Let me check the current directory structure:",
    );
    expect(v.steps[9].actions[0].text).toBe(
      "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
    );
    expect(v.exitStatus).toBe("Submitted");
    expect(v.submission.startsWith("diff --git a/tests/missing_colon.py b/tests/missing_colon.py\n")).toBe(
      true,
    );
    expect(v.steps.flatMap((s) => s.observations).filter((o) => o.formatError || o.timedOut)).toEqual([]);
  });

  test("SWE-agent .traj with function calling (marshmallow-1867)", async () => {
    const v = await loadTrajectoryFile(join(TRAJECTORIES, "sweagent.function_calling.marshmallow-1867.traj"));
    expect(v.source).toBe("swe-agent");
    expect(v.exitStatus).toBe("submitted");
    expect(v.system?.chars).toBe(1658);
    expect(v.firstUser?.chars).toBe(3661);
    expect(v.preamble).toEqual([]);
    expect(v.steps).toHaveLength(11);
    expect(v.steps[0].actions).toEqual([{ tool: null, text: "create reproduce.py" }]);
    expect(v.steps[0].observations[0].text).toBe("[File: reproduce.py (1 lines total)]\r\n1:");
    expect(v.steps[2].observations[0].text).toBe("344");
    expect(v.steps[10].actions[0].text).toBe("submit");
    expect(v.submission.startsWith("\r\ndiff --git a/src/marshmallow/fields.py")).toBe(true);
    expect([v.api_calls, v.prompt_tokens, v.completion_tokens, v.cost]).toEqual([11, 0, 0, 0]);
  });

  test("SWE-agent .traj with thought/action text (gpt4 test-repo-i1): the demonstration is kept apart", async () => {
    const v = await loadTrajectoryFile(join(TRAJECTORIES, "sweagent.gpt4.test-repo-i1.traj"));
    expect(v.system?.chars).toBe(4877);
    expect(v.preamble.map((p) => [p.role, p.note, p.chars])).toEqual([["user", "demonstration", 30977]]);
    expect(v.firstUser?.chars).toBe(3716);
    expect(v.steps.map((s) => s.actions[0].text)).toEqual([
      'find_file "missing_colon.py"',
      "open tests/missing_colon.py",
      "edit 4:4\ndef division(a: float, b: float) -> float:\nend_of_edit",
      "python tests/missing_colon.py",
      "submit",
    ]);
    expect(v.steps[1].thought).toBe(
      "The `missing_colon.py` file is located in the `tests` directory. Let's open the file to inspect the syntax error mentioned in the issue.",
    );
    expect([v.api_calls, v.prompt_tokens, v.completion_tokens, v.cost]).toEqual([5, 52861, 326, 0.53839]);
  });
});

describe("mini-swe-agent 1.1 ({info, messages, trajectory_format})", () => {
  const doc = {
    trajectory_format: "mini-swe-agent-1.1",
    info: {
      exit_status: "Submitted",
      submission: "diff --git a/x b/x\n",
      model_stats: { instance_cost: 0.05, api_calls: 2 },
      config: { model: { model_name: "anthropic/claude-sonnet-4-5" } },
      mini_version: "2.0.0",
    },
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: "No block here.",
        extra: { cost: 0.02, response: { usage: { prompt_tokens: 100, completion_tokens: 7 } } },
      },
      {
        role: "user",
        content: "Please always provide EXACTLY ONE action",
        extra: { interrupt_type: "FormatError" },
      },
      {
        role: "assistant",
        content: "Check.\n\n```mswea_bash_command\nls\n```",
        extra: {
          actions: [{ command: "ls" }],
          cost: 0.03,
          response: { usage: { prompt_tokens: 150, completion_tokens: 9 } },
        },
      },
      {
        role: "user",
        content: "<returncode>0</returncode>\n<output>\na\n</output>",
        extra: { returncode: 0 },
      },
      { role: "exit", content: "", extra: { exit_status: "Submitted", submission: "diff --git a/x b/x\n" } },
    ],
  };

  test("steps, per-step tokens from extra.response.usage, FormatError interrupt, exit message not a step", () => {
    const v = normalizeTrajectory(doc, "/runs/a/astropy__astropy-12907.traj.json");
    expect(v.source).toBe("mini-swe-agent-1.1");
    expect(v.instanceId).toBe("astropy__astropy-12907");
    expect(v.model).toBe("anthropic/claude-sonnet-4-5");
    expect(v.steps).toHaveLength(2);
    expect(v.steps[0]).toMatchObject({ actions: [], prompt_tokens: 100, completion_tokens: 7, cost: 0.02 });
    expect(v.steps[0].observations[0].formatError).toBe(true);
    expect(v.steps[1]).toMatchObject({ thought: "Check.", actions: [{ tool: null, text: "ls" }] });
    expect(v.steps[1].observations).toHaveLength(1);
    expect([v.prompt_tokens, v.completion_tokens, v.cost, v.api_calls]).toEqual([250, 16, 0.05, 2]);
    expect(v.submission).toBe("diff --git a/x b/x\n");
  });
});

describe("patchloop-1", () => {
  test("extra.actions, usage, format_error and timed_out flags", () => {
    const v = normalizeTrajectory(patchloopTrajectory(INSTANCES[0]), "x.traj.json");
    expect(v.source).toBe("patchloop-1");
    expect(v.instanceId).toBe("django__django-11099");
    expect(v.system).toEqual({ role: "system", text: SYSTEM_PROMPT, chars: SYSTEM_PROMPT.length });
    expect(v.steps[0]).toEqual({
      index: 1,
      thought: "Look at the validator.",
      actions: [{ tool: null, text: "grep -n regex django/core/validators.py" }],
      observations: [
        { text: "12: regex = r'^[\\w.@+-]+$'", returncode: 0, timedOut: false, formatError: false },
      ],
      prompt_tokens: 1234,
      completion_tokens: 56,
      cost: 0.001,
      finishReason: "stop",
    });
    expect(v.steps[1].observations[0].formatError).toBe(true);
    expect(v.steps[2].observations[0]).toMatchObject({ timedOut: true, returncode: -1 });
    expect([v.wallSeconds, v.cost, v.model]).toEqual([42.5, 0.25, "openai/test-model"]);
  });

  test("tool calls: {tool, args} actions show the command, or key: value lines for other tools", () => {
    const traj = patchloopTrajectory({ ...INSTANCES[1], steps: [] });
    traj.messages.push({
      role: "assistant",
      content: "Two tools.",
      tool_calls: [],
      extra: {
        actions: [
          { tool: "bash", args: { command: "ls -la" } },
          {
            tool: "str_replace_editor",
            args: { command: "str_replace", path: "/a.py", old_str: "x = 1\ny = 2" },
          },
        ],
      },
    });
    const v = normalizeTrajectory(traj, "t.traj.json");
    expect(v.steps[0].actions).toEqual([
      { tool: "bash", text: "ls -la" },
      { tool: "str_replace_editor", text: "command: str_replace\npath: /a.py\nold_str:\nx = 1\ny = 2" },
    ]);
  });
});

describe("bad input gets a clear error", () => {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-inspect-bad-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  test.each([
    ["not JSON", "{oops", /bad\.json is not valid JSON \(.+\); 5 bytes were read/],
    ["empty list", "[]", /the message list is empty; expected a patchloop trajectory/],
    ["unknown object", '{"foo": 1}', /got an object with keys foo; expected a patchloop trajectory/],
    [
      "unknown format",
      '{"trajectory_format": "patchloop-9", "messages": []}',
      /unknown trajectory_format "patchloop-9"/,
    ],
    [
      "message without role",
      '[{"content": "hi"}]',
      /message 0 has no "role" \(got an object with keys content\)/,
    ],
  ])("%s", async (_name, text, message) => {
    const file = join(dir, "bad.json");
    writeFileSync(file, text);
    const err = await loadTrajectoryFile(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrajectoryFormatError);
    expect((err as Error).message).toMatch(message);
  });

  test("a missing file names the path", async () => {
    await expect(loadTrajectoryFile(join(dir, "nope.traj.json"))).rejects.toThrow(
      /cannot read .*nope\.traj\.json: ENOENT/,
    );
  });
});
