import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { loadConfig } from "../../src/config/load.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { createModel } from "../../src/models/factory/create-model.js";
import { ScriptedModel, type ScriptedResponse } from "../../src/models/scripted.js";
import type { Model } from "../../src/models/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

/** One reply of `n` bash calls, each appending its number to calls.txt. */
function manyCalls(n: number): ScriptedResponse {
  return {
    content: "all at once",
    toolCalls: Array.from({ length: n }, (_, i) => ({
      name: "bash",
      arguments: { command: `echo ${i} >> calls.txt` },
    })),
  };
}

async function runWith(
  model: Model | ((config: ReturnType<typeof loadConfig>["config"]) => Model),
  args: string[],
) {
  const dir = tempDir();
  const repo = join(dir, "repo");
  makeRepo(repo, { "app.py": "x = 1\n" });
  const { config } = loadConfig({
    configArgs: ["default", "model.model_name=scripted", ...args],
    defaultConfig: "default",
  });
  const env = createLocalEnvironment({ cwd: repo, timeout: config.environment.timeout });
  const trajPath = join(dir, "t.traj.json");
  const t0 = Date.now();
  const result = await runAgent({
    config,
    model: typeof model === "function" ? model(config) : model,
    env,
    runner: createActionRunner(config),
    task: "Do it",
    trajectoryPath: trajPath,
  });
  await env.close();
  const ran = (() => {
    try {
      return readFileSync(join(repo, "calls.txt"), "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  })();
  const traj = JSON.parse(readFileSync(trajPath, "utf8")) as Trajectory;
  return { result, ran, traj, seconds: (Date.now() - t0) / 1000 };
}

const DROPPED_20000 =
  "Your last reply asked for 20000 actions; only the first 16 were run (at most 16 run per reply: agent.max_actions_per_reply). " +
  "The other 19984 were not run and are removed from your reply. Send the ones you still need in your next replies, at most 16 in each.";

describe("agent.max_actions_per_reply", () => {
  it("a reply of 20,000 tool calls runs the first 16 (the default), and the model is told why the rest did not", async () => {
    const model = new ScriptedModel([
      manyCalls(20_000),
      { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] },
    ]);
    const { result, ran, traj, seconds } = await runWith(model, []);
    expect(result.exitStatus).toBe("Submitted");
    expect(ran).toEqual(Array.from({ length: 16 }, (_, i) => String(i)));
    expect(seconds).toBeLessThan(30);
    const step1 = traj.messages.filter((m) => m.extra?.step === 1);
    // the reply keeps the 16 calls that ran, each answered by its tool message, then the notice
    expect(step1.map((m) => m.role)).toEqual(["assistant", ...Array(16).fill("tool"), "user"]);
    expect(step1[0].tool_calls).toHaveLength(16);
    expect(step1[0].extra?.dropped_actions).toBe(19_984);
    expect(step1[0].extra?.actions).toHaveLength(16);
    expect(step1.slice(1, 17).map((m) => m.tool_call_id)).toEqual(step1[0].tool_calls?.map((c) => c.id));
    expect(step1[17].content).toBe(DROPPED_20000);
    expect(step1[17].extra).toMatchObject({ kind: "actions_dropped", dropped_actions: 19_984 });
    // the second request saw the notice last
    const second = model.calls[1].messages;
    expect(second.at(-1)?.content).toBe(DROPPED_20000);
  });

  it("a lower cap from the config; 0 runs every call; a reply within the cap gets no notice", async () => {
    const capped = await runWith(
      new ScriptedModel([manyCalls(5), { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }]),
      ["agent.max_actions_per_reply=2"],
    );
    expect(capped.ran).toEqual(["0", "1"]);
    expect(
      capped.traj.messages.filter((m) => m.extra?.kind === "actions_dropped").map((m) => m.content),
    ).toEqual([
      "Your last reply asked for 5 actions; only the first 2 were run (at most 2 run per reply: agent.max_actions_per_reply). " +
        "The other 3 were not run and are removed from your reply. Send the ones you still need in your next replies, at most 2 in each.",
    ]);
    const uncapped = await runWith(
      new ScriptedModel([manyCalls(40), { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }]),
      ["agent.max_actions_per_reply=0"],
    );
    expect(uncapped.ran).toHaveLength(40);
    const within = await runWith(
      new ScriptedModel([manyCalls(16), { toolCalls: [{ name: "bash", arguments: { command: SUBMIT } }] }]),
      [],
    );
    expect(within.ran).toHaveLength(16);
    expect(within.traj.messages.some((m) => m.extra?.kind === "actions_dropped")).toBe(false);
  });

  it("a negative or fractional cap is a config error naming the key", () => {
    expect(() =>
      loadConfig({ configArgs: ["default", "agent.max_actions_per_reply=-1"], defaultConfig: "default" }),
    ).toThrow(/agent\.max_actions_per_reply/);
    expect(() =>
      loadConfig({ configArgs: ["default", "agent.max_actions_per_reply=1.5"], defaultConfig: "default" }),
    ).toThrow(/agent\.max_actions_per_reply/);
  });

  it("the time limit stops the actions of a reply between two of them; the step limit does not", async () => {
    const slow: ScriptedResponse = {
      toolCalls: Array.from({ length: 6 }, (_, i) => ({
        name: "bash",
        arguments: { command: `sleep 0.5; echo ${i} >> calls.txt` },
      })),
    };
    const timed = await runWith(new ScriptedModel([slow]), ["agent.time_limit=1.2"]);
    expect(timed.result.exitStatus).toBe("TimeExceeded");
    expect(timed.ran.length).toBeGreaterThanOrEqual(2);
    expect(timed.ran.length).toBeLessThan(6);
    // step_limit 1: the one reply it allows runs all its actions, then the loop stops before a second call
    const stepped = await runWith(new ScriptedModel([manyCalls(6)]), ["agent.step_limit=1"]);
    expect(stepped.result.exitStatus).toBe("LimitsExceeded");
    expect(stepped.ran).toHaveLength(6);
  });
});

describe("agent.max_actions_per_reply with an OpenAI-compatible server", () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlmServer();
  });
  afterAll(() => server.close());

  it("the next request holds the reply with only the calls that ran, each with its tool message", async () => {
    const calls = Array.from({ length: 300 }, (_, i) => ({
      id: `call_${i}`,
      name: "bash",
      arguments: { command: `echo ${i} >> calls.txt` },
    }));
    server.enqueue(
      { type: "reply", toolCalls: calls },
      { type: "reply", toolCalls: [{ id: "call_submit", name: "bash", arguments: { command: SUBMIT } }] },
    );
    const { result, ran } = await runWith(
      (config) => createModel(config.model, { env: {} }),
      [`model.base_url=${server.url}/v1`, "model.model_name=fake", "agent.max_actions_per_reply=3"],
    );
    expect(result.exitStatus).toBe("Submitted");
    expect(ran).toEqual(["0", "1", "2"]);
    const messages = (server.requests[1].body as { messages: Array<Record<string, unknown>> }).messages;
    const reply = messages.findIndex((m) => m.role === "assistant");
    expect((messages[reply].tool_calls as Array<{ id: string }>).map((c) => c.id)).toEqual([
      "call_0",
      "call_1",
      "call_2",
    ]);
    expect(messages.slice(reply + 1).map((m) => [m.role, m.tool_call_id ?? null])).toEqual([
      ["tool", "call_0"],
      ["tool", "call_1"],
      ["tool", "call_2"],
      ["user", null],
    ]);
    expect(messages.at(-1)?.content).toContain("asked for 300 actions; only the first 3 were run");
  });
});
