import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentResult, runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import { textOf } from "../../src/agent/protocols/types.js";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { ScriptedModel, type ScriptedReply, type ScriptedResponse } from "../../src/models/scripted.js";
import type { ModelRequest } from "../../src/models/types.js";
import { git, makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";
const bash = (
  command: string,
  extra: Partial<{ usage: { prompt_tokens: number; completion_tokens: number }; cost: number }> = {},
): ScriptedResponse => ({
  content: "thought",
  toolCalls: [{ name: "bash", arguments: { command } }],
  ...extra,
});
const block = (command: string): ScriptedReply => ({
  content: `THOUGHT: go\n\`\`\`mswea_bash_command\n${command}\n\`\`\``,
});

interface Setup {
  result: AgentResult;
  model: ScriptedModel;
  repo: string;
  base: string;
  trajPath: string;
}

async function run(
  responses: ScriptedResponse[],
  configArgs: string[] = [],
  opts: { signal?: AbortSignal } = {},
): Promise<Setup> {
  const dir = tempDir();
  const repo = join(dir, "repo");
  const base = makeRepo(repo, { "app.py": "def add(a, b):\n    return a - b\n" });
  const { config } = loadConfig({
    configArgs: ["default", "model.model_name=scripted", ...configArgs],
    defaultConfig: "default",
  });
  const model = new ScriptedModel(responses);
  const env = createLocalEnvironment({ cwd: repo, timeout: config.environment.timeout });
  const trajPath = join(dir, "out", "t.traj.json");
  const result = await runAgent({
    config,
    model,
    env,
    runner: createActionRunner(config),
    task: "Fix add()",
    instance: { repo: "acme/app" },
    trajectoryPath: trajPath,
    signal: opts.signal,
  });
  await env.close();
  return { result, model, repo, base, trajPath };
}

/** The patch applies with `git apply` on a fresh clone at the base commit. */
function appliesOnBase(s: Setup): string {
  const clone = join(tempDir(), "clone");
  execFileSync("git", ["clone", "-q", s.repo, clone]);
  git(clone, "checkout", "-q", s.base);
  writeFileSync(join(clone, "..", "p.diff"), s.result.submission);
  git(clone, "apply", "--verbose", join(clone, "..", "p.diff"));
  return readFileSync(join(clone, "app.py"), "utf8");
}

describe("agent loop", () => {
  it("Submitted: edits, submits, and the submission is a patch git apply takes on the base", async () => {
    const s = await run([
      bash("sed -i 's/a - b/a + b/' app.py && echo 'x = 1' > new_file.py", {
        usage: { prompt_tokens: 100, completion_tokens: 10 },
        cost: 0.01,
      }),
      bash(SUBMIT),
    ]);
    s.model.assertAllUsed();
    expect(s.result.exitStatus).toBe("Submitted");
    expect(s.result.submission).toContain("+++ b/new_file.py");
    expect(appliesOnBase(s)).toBe("def add(a, b):\n    return a + b\n");
    const onDisk = JSON.parse(readFileSync(s.trajPath, "utf8"));
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(s.result.trajectory)));
    expect(onDisk.trajectory_format).toBe("patchloop-1");
    expect(onDisk.info.exit_status).toBe("Submitted");
    expect(onDisk.info.model_stats).toEqual({
      api_calls: 2,
      prompt_tokens: 100,
      completion_tokens: 10,
      cost: 0.01,
    });
    expect(onDisk.info.config.agent.protocol).toBe("tool_calls");
    expect(onDisk.messages.map((m: { role: string }) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    expect(onDisk.messages[2].extra.actions).toEqual([
      { tool: "bash", args: { command: "sed -i 's/a - b/a + b/' app.py && echo 'x = 1' > new_file.py" } },
    ]);
    expect(s.model.calls[0].tools?.map((t) => t.name)).toEqual(["bash", "str_replace_editor"]);
    expect(s.model.calls[0].messages.every((m) => m.extra === undefined)).toBe(true);
  });

  it("Submitted in the backticks protocol", async () => {
    const s = await run(
      [block("sed -i 's/a - b/a + b/' app.py"), block(SUBMIT)],
      ["swebench_backticks", "environment.environment_class=local", "environment.cwd=''"],
    );
    expect([s.result.exitStatus, s.result.exitMessage]).toEqual([
      "Submitted",
      "the agent submitted its work",
    ]);
    expect(s.model.calls[0].tools).toBeUndefined();
    expect(appliesOnBase(s)).toBe("def add(a, b):\n    return a + b\n");
  });

  it("the 26B recipe: edit-tool blocks edit through the editor, mixed blocks are rejected, the budget shows", async () => {
    let repoDir = "";
    const edit = (req: ModelRequest): ScriptedReply => {
      repoDir = /at (\S+)\. Change/.exec(String(req.messages[1].content))![1];
      return block(
        `edit-tool str_replace --file ${repoDir}/app.py << 'PATCH'\n---OLD---\n    return a - b\n---NEW---\n    return a + b\nPATCH`,
      );
    };
    const s = await run(
      [edit, block("edit-tool view --file /x && ls"), block(SUBMIT)],
      ["swebench_edittool_budget", "environment.environment_class=local", "environment.cwd=''"],
    );
    expect(s.result.exitStatus).toBe("Submitted");
    expect(appliesOnBase(s)).toBe("def add(a, b):\n    return a + b\n");
    const observations = s.result.trajectory.messages.filter((m) => m.role === "user" && m.extra?.step);
    expect(textOf(observations[0])).toMatch(
      /^<returncode>0<\/returncode>\n<output>\n[\s\S]*return a \+ b[\s\S]*<\/output>\n\[step 1 of 100: 99 left\]$/,
    );
    expect(textOf(observations[1])).toContain("<returncode>1</returncode>");
    expect(textOf(observations[1])).toContain("edit-tool");
    expect(s.model.calls[0].messages[0].content).toContain("BUDGET: you have 100 steps.");
  });

  it("a submitted patch longer than the output limit is kept whole (the observation is clipped, the patch is not)", async () => {
    const s = await run([bash("seq 1 3000 > big.txt"), bash(SUBMIT)], ["agent.output_limit=1000"]);
    expect(s.result.exitStatus).toBe("Submitted");
    expect(s.result.submission.length).toBeGreaterThan(14_000);
    expect(s.result.submission).not.toContain("left out");
    appliesOnBase(s);
    expect(textOf(s.result.trajectory.messages.at(-1)!)).toContain("left out of the middle");
  });

  it("the exit diff ignores the user's git colour and prefix settings and git's warnings", async () => {
    const home = tempDir();
    writeFileSync(join(home, ".gitconfig"), "[color]\n\tui = always\n[diff]\n\tnoprefix = true\n");
    const old = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = join(home, ".gitconfig");
    try {
      const s = await run(
        [
          bash(
            "sed -i 's/a - b/a + b/' app.py && mkdir sub && git -C sub init -q && touch sub/x && git -C sub add x && git -C sub -c user.name=a -c user.email=a@b commit -qm x",
          ),
        ],
        ["agent.step_limit=1"],
      );
      expect(s.result.submission.startsWith("diff --git a/app.py b/app.py\n")).toBe(true);
      expect(s.result.submission).not.toContain("\u001b[");
      expect(s.result.submission).not.toContain("warning:");
      expect(appliesOnBase(s)).toBe("def add(a, b):\n    return a + b\n");
    } finally {
      if (old === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = old;
    }
  });

  it("a submit command must exit 0 and print the marker as its whole first line", async () => {
    const s = await run(
      [
        bash("echo ' COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'"),
        bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; false"),
      ],
      ["agent.step_limit=2"],
    );
    expect(s.result.exitStatus).toBe("LimitsExceeded");
  });

  it("LimitsExceeded by steps keeps the work tree's diff, new files included", async () => {
    const s = await run(
      [bash("sed -i 's/a - b/a + b/' app.py"), bash("printf 'print(1)\\n' > extra.py")],
      ["agent.step_limit=2"],
    );
    expect(s.result.exitStatus).toBe("LimitsExceeded");
    expect(s.result.exitMessage).toBe("step limit reached: 2 of 2 model calls used");
    expect(s.result.submission).toContain("+++ b/extra.py");
    expect(appliesOnBase(s)).toBe("def add(a, b):\n    return a + b\n");
    expect(git(s.repo, "status", "--porcelain")).toBe(" M app.py\n?? extra.py\n");
  });

  it("diff_on_exit off leaves the submission empty", async () => {
    const s = await run(
      [bash("sed -i 's/a - b/a + b/' app.py")],
      ["agent.step_limit=1", "agent.diff_on_exit=false"],
    );
    expect([s.result.exitStatus, s.result.submission]).toEqual(["LimitsExceeded", ""]);
  });

  it("LimitsExceeded by cost", async () => {
    const s = await run([bash("true", { cost: 0.3 }), bash("true", { cost: 0.3 })], ["agent.cost_limit=0.5"]);
    expect([s.result.exitStatus, s.result.exitMessage]).toEqual([
      "LimitsExceeded",
      "cost limit reached: $0.6000 of $0.5",
    ]);
  });

  it("TimeExceeded", async () => {
    const s = await run([bash("sleep 1.2")], ["agent.time_limit=1"]);
    expect(s.result.exitStatus).toBe("TimeExceeded");
  });

  it("ContextExceeded from the model and from context_limit", async () => {
    const a = await run([{ error: "context_exceeded", message: "maximum context length is 32768 tokens" }]);
    expect([a.result.exitStatus, a.result.exitMessage]).toEqual([
      "ContextExceeded",
      "maximum context length is 32768 tokens",
    ]);
    const b = await run(
      [bash("true", { usage: { prompt_tokens: 1500, completion_tokens: 5 } })],
      ["agent.context_limit=1000"],
    );
    expect([b.result.exitStatus, b.result.exitMessage]).toEqual([
      "ContextExceeded",
      "context limit reached: the last prompt had 1500 tokens, the limit is 1000",
    ]);
  });

  it("ModelError when retries are exhausted", async () => {
    const s = await run([{ error: "retries_exhausted", message: "HTTP 503 after 6 attempts" }]);
    expect([s.result.exitStatus, s.result.exitMessage]).toEqual(["ModelError", "HTTP 503 after 6 attempts"]);
  });

  it("RepeatedFormatError after max_format_errors replies in a row; a good reply resets the count", async () => {
    const s = await run(
      [{ content: "no block" }, block("true"), { content: "still none" }, { content: "a" }, { content: "b" }],
      ["swebench_backticks", "environment.environment_class=local", "environment.cwd=''"],
    );
    expect(s.result.exitStatus).toBe("RepeatedFormatError");
    const errors = s.result.trajectory.messages.filter((m) => m.extra?.format_error);
    expect(errors.length).toBe(4);
    expect(textOf(errors[0])).toBe(
      "Your reply could not be run: your reply has no ```mswea_bash_command block, so nothing ran. End it with exactly one block holding the command, in the form expected:\n```mswea_bash_command\n<command>\n```\nReply with a THOUGHT and exactly one ```mswea_bash_command block.",
    );
  });

  it("a tool_calls reply without a call is a format error answered with the template", async () => {
    const s = await run([{ content: "I am done" }], ["agent.max_format_errors=1"]);
    expect(s.result.exitStatus).toBe("RepeatedFormatError");
    expect(textOf(s.result.trajectory.messages.at(-1)!)).toBe(
      'Your reply could not be run: your reply had no tool call, only text: "I am done". Every reply must call at least one of the tools (bash, str_replace_editor); to finish, submit with the bash tool.\nReply again with one or more tool calls.',
    );
  });

  it("a reply cut off by the token limit runs nothing and says so; its tool calls get replies", async () => {
    const s = await run([
      {
        content: "x",
        toolCalls: [{ name: "bash", arguments: '{"command": "touch cut', id: "c1" }],
        finishReason: "length",
      },
      bash(SUBMIT),
    ]);
    expect(s.result.exitStatus).toBe("Submitted");
    const msgs = s.model.calls[1].messages;
    expect(msgs.slice(3).map((m) => [m.role, textOf(m)])).toEqual([
      ["tool", "Not run: your reply was cut off by the output token limit."],
      [
        "user",
        "Your last reply was cut off because it reached the output token limit, so none of it ran.\nSend a shorter reply: less explanation, one action.",
      ],
    ]);
    expect(s.result.submission).toBe("");
  });

  it("EnvironmentError when the environment cannot be prepared; no model call is made", async () => {
    const s = await run([], ["run.env_startup_command='echo broken; exit 3'"]);
    expect(s.result.exitStatus).toBe("EnvironmentError");
    expect(s.result.exitMessage).toBe("run.env_startup_command failed (exit 3): broken\n");
    expect(s.model.calls.length).toBe(0);
  });

  it("Interrupted: aborting stops a running command and saves the trajectory", async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 500);
    const t0 = Date.now();
    const s = await run([bash("sleep 30")], [], { signal: ctl.signal });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(s.result.exitStatus).toBe("Interrupted");
    expect(JSON.parse(readFileSync(s.trajPath, "utf8")).info.exit_status).toBe("Interrupted");
  });

  it("observations are clipped head+tail at output_limit and say how much was left out", async () => {
    const s = await run(
      [bash("python3 -c \"print('a'*600 + 'b'*600)\"")],
      ["agent.step_limit=1", "agent.output_limit=200"],
    );
    const obs = textOf(s.result.trajectory.messages[3]);
    expect(obs).toContain(
      `${"a".repeat(100)}\n[... 1001 characters left out of the middle of this output (1201 in all).`,
    );
    expect(obs).toContain(`...]\n${"a".repeat(0)}${"b".repeat(99)}\n\n</output>`);
    expect(obs.length).toBeLessThan(600);
  });

  it("a command that times out shows its partial output and says it timed out", async () => {
    const s = await run(
      [bash("echo started; sleep 5; echo never")],
      ["agent.step_limit=1", "environment.timeout=1"],
    );
    const obs = s.result.trajectory.messages[3];
    expect(obs.extra?.timed_out).toBe(true);
    expect(textOf(obs)).toContain(
      "The command was stopped after 1 seconds; this is what it printed until then:",
    );
    expect(textOf(obs)).toContain("started");
    expect(textOf(obs)).not.toContain("never");
  });

  it("a command that prints a gigabyte is capped and the loop goes on", async () => {
    const s = await run([bash("yes | head -c 1000000000"), bash(SUBMIT)]);
    expect(s.result.exitStatus).toBe("Submitted");
    expect(textOf(s.result.trajectory.messages[3]).length).toBeLessThan(12_000);
  }, 120_000);
});
