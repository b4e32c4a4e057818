import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { runPatchloop } from "../support/cli.js";
import { SWEBENCH_DATA } from "../support/data.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** Runs the built CLI as a user would (test/support/cli.ts). */
const cli = runPatchloop;

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("patchloop run", () => {
  it("fixes a repository through a real OpenAI-compatible HTTP server and writes trajectory, patch and preds", async () => {
    const dir = tempDir();
    const repo = join(dir, "calc");
    makeRepo(repo, { "calc.py": "def add(a, b):\n    return a - b\n" });
    server = await startFakeLlmServer();
    server.enqueue(
      {
        type: "reply",
        content: "Fix the sign.",
        toolCalls: [
          {
            name: "str_replace_editor",
            arguments: {
              command: "str_replace",
              // the default worktree of the repository, in the run folder (src/interactive/workspace.ts)
              path: `${dir}/out/worktree/calc/calc.py`,
              old_str: "a - b",
              new_str: "a + b",
            },
          },
        ],
        usage: { prompt_tokens: 300, completion_tokens: 30 },
      },
      {
        type: "reply",
        content: "Submit.",
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
            },
          },
        ],
        usage: { prompt_tokens: 400, completion_tokens: 20 },
      },
    );
    const out = join(dir, "out");
    const r = await cli([
      "run",
      "--repo",
      repo,
      "--task",
      "add() subtracts",
      "-m",
      "openai/local-model",
      "--base-url",
      `${server.url}/v1`,
      "-c",
      "model.model_kwargs={temperature: 0.3, top_k: 20}",
      "-o",
      out,
    ]);
    expect(r.stderr).toMatch(
      /^WARNING: environment 'local': commands run directly on this machine with your user's rights\. Nothing is isolated/,
    );
    expect(r.stderr.split("\n").length).toBe(2);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("THOUGHT\nFix the sign.\nACTION str_replace_editor");
    expect(r.stdout).toContain(
      `exit status: Submitted (the agent submitted its work)\ntrajectory: ${out}/calc/calc.traj.json\npatch:      ${out}/calc/calc.patch`,
    );
    const patch = readFileSync(join(out, "calc", "calc.patch"), "utf8");
    expect(patch).toContain("-    return a - b\n+    return a + b\n");
    const preds = JSON.parse(readFileSync(join(out, "preds.json"), "utf8"));
    expect(preds).toEqual({
      calc: { instance_id: "calc", model_name_or_path: "openai/local-model", model_patch: patch },
    });
    const body = server.requests[0].body as Record<string, unknown>;
    expect([body.model, body.temperature, body.top_k]).toEqual(["local-model", 0.3, 20]);
    const traj = JSON.parse(readFileSync(join(out, "calc", "calc.traj.json"), "utf8"));
    expect(traj.info.model_stats).toEqual({
      api_calls: 2,
      prompt_tokens: 700,
      completion_tokens: 50,
      cost: 0,
    });
  });

  it("ends with ModelError, exit 1 and a saved trajectory when the server keeps failing", async () => {
    const dir = tempDir();
    const repo = join(dir, "calc");
    makeRepo(repo, { "calc.py": "x = 1\n" });
    server = await startFakeLlmServer({
      defaultBehaviour: { type: "error", status: 500, body: { error: { message: "boom" } } },
    });
    const r = await cli([
      "run",
      "--repo",
      repo,
      "--task",
      "t",
      "-m",
      "openai/m",
      "--base-url",
      `${server.url}/v1`,
      "-c",
      "model.retry={max_tries: 2, initial_delay: 0, max_delay: 0}",
      "-o",
      join(dir, "o"),
      "--quiet",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^exit status: ModelError \(/m);
    expect(JSON.parse(readFileSync(join(dir, "o", "calc", "calc.traj.json"), "utf8")).info.exit_status).toBe(
      "ModelError",
    );
  });

  it("keeps API keys out of the agent's commands and its own output folder out of the repository", async () => {
    const dir = tempDir();
    const repo = join(dir, "calc");
    makeRepo(repo, { "calc.py": "x = 1\n" });
    server = await startFakeLlmServer();
    server.enqueue(
      {
        type: "reply",
        content: "look",
        toolCalls: [
          {
            name: "bash",
            arguments: { command: "env | grep -c -E '^(MY_KEY|OPENAI_API_KEY)=' ; echo done" },
          },
        ],
      },
      {
        type: "reply",
        content: "go",
        toolCalls: [
          {
            name: "bash",
            arguments: {
              command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
            },
          },
        ],
      },
    );
    const r = await cli(
      [
        "run",
        "--repo",
        repo,
        "--task",
        "t",
        "-m",
        "openai/m",
        "--base-url",
        `${server.url}/v1`,
        "-c",
        "model.api_key_env=MY_KEY",
        "--quiet",
        "-o",
        join(dir, "o1"),
      ],
      { MY_KEY: "sk-TOPSECRET", OPENAI_API_KEY: "sk-OAI999" },
    );
    expect(r.code).toBe(0);
    expect(server.requests[0].headers.authorization).toBe("Bearer sk-TOPSECRET");
    const out = readFileSync(join(dir, "o1", "calc", "calc.traj.json"), "utf8");
    expect(out).not.toContain("sk-TOPSECRET");
    expect(out).not.toContain("sk-OAI999");
    expect(JSON.parse(out).messages[3].content).toContain("<output>\n0\ndone");
    // run from inside the repository: the default output folder is kept out of the patch
    const submit = {
      role: "assistant",
      content: "go",
      tool_calls: [
        {
          id: "c1",
          type: "function",
          function: {
            name: "bash",
            arguments: JSON.stringify({
              command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
            }),
          },
        },
      ],
    };
    writeFileSync(join(dir, "rec.json"), JSON.stringify({ messages: [submit] }));
    const inside = await cli(
      ["run", "--repo", ".", "--task", "t", "-m", `replay:${join(dir, "rec.json")}`, "--quiet"],
      {},
      repo,
    );
    expect(inside.stdout).toMatch(/patch: {6}\S+ \(0 bytes\)/);
    // ... and it lies beside the repository, not in it (the agent could rewrite what records it)
    const where = /trajectory: (\S+)/.exec(inside.stdout)?.[1] ?? "";
    expect(where.startsWith(join(dir, "patchloop-runs", "run-"))).toBe(true);
    expect(existsSync(join(repo, "patchloop-runs"))).toBe(false);
    const refused = await cli(
      ["run", "--repo", ".", "--task", "t", "-m", `replay:${join(dir, "rec.json")}`, "-o", "out"],
      {},
      repo,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `error: -o out is inside the repository ${repo}: the agent could change what records it there. ` +
        "Give a folder outside the repository.",
    );
  });

  it("a template variable the task does not provide is a config error before anything starts", async () => {
    const dir = tempDir();
    const repo = join(dir, "r");
    makeRepo(repo, { a: "a\n" });
    const r = await cli([
      "run",
      "--repo",
      repo,
      "--task",
      "t",
      "-m",
      "openai/m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "-c",
      "agent.instance_template='{{ task }} {{ instance.hints_text }}'",
      "-o",
      join(dir, "o"),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: template agent.instance_template uses undefined variables:\n  - instance.hints_text (instance has: repo, instance_id, problem_statement)\n" +
        r.stderr.slice(r.stderr.indexOf("  available:")),
    );
  });

  it("config errors exit 2 before any model call", async () => {
    const dir = tempDir();
    const repo = join(dir, "r");
    makeRepo(repo, { a: "a\n" });
    const bad = await cli([
      "run",
      "--repo",
      repo,
      "--task",
      "t",
      "-m",
      "openai/m",
      "-c",
      "agent.step_limt=3",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error: invalid config:\n {2}- unknown key agent\.step_limt \(from -c agent\.step_limt=3\): did you mean agent\.step_limit\?/,
    );
    const noModel = await cli(["run", "--repo", repo, "--task", "t"]);
    expect([noModel.code, noModel.stderr]).toEqual([
      2,
      "error: no model: pass -m openai/<name>, -m anthropic/<name>, -m gguf:<file.gguf> or -m replay:<file>, or set model.model_name\n",
    ]);
    const notRepo = await cli(["run", "--repo", dir, "--task", "t", "-m", "openai/m"]);
    expect([notRepo.code, notRepo.stderr]).toEqual([
      2,
      `error: --repo ${dir}: not a git repository (no .git); patchloop needs git to record the patch\n`,
    ]);
  });
});

describe("patchloop config show", () => {
  it("prints the resolved config and the rendered messages with their sizes, never a secret", async () => {
    const r = await cli([
      "config",
      "show",
      "-c",
      "swebench_edittool_budget",
      "-c",
      "model.model_kwargs.api_key=sk-secret",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("sk-secret");
    expect(r.stdout).toContain('    api_key: "***"');
    expect(r.stdout).toMatch(
      /^# patchloop resolved config \(layers: configs\/base\.yaml -> built-in config "swebench_edittool_budget" -> -c model\.model_kwargs\.api_key=\*\*\*\)\nagent:\n/,
    );
    const sys = /# --- system message: (\d+) characters, ~(\d+) tokens ---\n/.exec(r.stdout)!;
    const start = sys.index + sys[0].length;
    const user = r.stdout.indexOf("# --- first user message");
    // the message, its line end, and one blank line before the next section
    expect(r.stdout.slice(start, user).length).toBe(Number(sys[1]) + 2);
    expect(Number(sys[2])).toBe(Math.ceil(Number(sys[1]) / 4));
    expect(r.stdout).toContain("BUDGET: you have 100 steps.");
  });

  it("shows a config edit in the system message length (the seed experience)", async () => {
    const a = await cli(["config", "show"]);
    const b = await cli(["config", "show", "-c", "agent.system_template='Short.'"]);
    expect(a.stdout).not.toContain("# --- system message: 6 characters");
    expect(b.stdout).toContain("# --- system message: 6 characters, ~2 tokens ---\nShort.\n");
  });
});

describe("patchloop config show --instance", () => {
  it("renders the first user message for a real SWE-bench Lite row", async () => {
    const lite = join(SWEBENCH_DATA, "swe-bench-lite.test.jsonl");
    const r = await cli([
      "config",
      "show",
      "-c",
      "swebench",
      "--instance",
      "django__django-11099",
      "--subset",
      lite,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /# --- first user message \(django__django-11099\): \d+ characters, ~\d+ tokens ---\n<issue>\nUsernameValidator allows trailing newline in usernames/,
    );
    expect(r.stdout).toContain("The repository django/django is checked out at /testbed");
    const missing = await cli(["config", "show", "--instance", "nope", "--subset", lite]);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      `error: --instance nope: no such instance in ${lite} (test), which has 300 rows\n`,
    ]);
  });
});

describe("patchloop demo", () => {
  it("solves the bundled bug offline; the hidden test fails before and passes after", async () => {
    const out = join(tempDir(), "demo");
    const r = await cli(["demo", "-o", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("hidden test before the patch: FAIL\nhidden test after the patch:  PASS\n");
    expect(r.stdout).toContain(`open this run with: patchloop inspect ${out}\n`);
    expect(r.stdout).toContain("STEP 4\nTHOUGHT\nConfirmed: it prints 2.");
  });

  it("two demos at once each work in a temp folder of their own, removed at the end", async () => {
    const outs = [join(tempDir(), "demo-a"), join(tempDir(), "demo-b")];
    const runs = await Promise.all(outs.map((o) => cli(["demo", "-o", o, "--quiet"])));
    const folders = runs.map((r, i) => {
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout).toContain("hidden test before the patch: FAIL\nhidden test after the patch:  PASS\n");
      // the editor calls of the replay name this run's repository
      const traj = readFileSync(join(outs[i], "textstats-1", "textstats-1.traj.json"), "utf8");
      const repo = /"path": ?"([^"]*)\/src\/stats\.js"/.exec(traj.replaceAll('\\"', '"'))?.[1] ?? "";
      expect(repo).toMatch(new RegExp(`^${tmpdir()}/patchloop-demo-[A-Za-z0-9]{6}/textstats$`));
      expect(existsSync(dirname(repo))).toBe(false);
      return repo;
    });
    expect(folders[0]).not.toBe(folders[1]);
  });
});
