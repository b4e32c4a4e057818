import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { type AgentResult, runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { createLocalEnvironment } from "../../src/environments/local.js";
import { createModel } from "../../src/models/factory/create-model.js";
import {
  type FakeBehaviour,
  type FakeLlmServer,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** The bash command that hands in the work (first output line is the submit marker). */
export const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

/** A reply calling the bash tool with `command` (OpenAI or Anthropic wire, the server picks). */
export function bashReply(command: string, id?: string): FakeBehaviour {
  return { type: "reply", content: "thought", toolCalls: [{ id, name: "bash", arguments: { command } }] };
}

/** A backticks-protocol reply whose text is `text`. */
export function textReply(text: string): FakeBehaviour {
  return { type: "reply", content: text };
}

const servers: FakeLlmServer[] = [];

/** A fake LLM server on 127.0.0.1, closed after the current test. */
export async function fakeServer(defaultBehaviour?: FakeBehaviour): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer({ defaultBehaviour });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export interface TaskOptions {
  /** `openai` (default) or `anthropic`: which client and which wire format. */
  wire?: "openai" | "anthropic";
  /** Built-in config to start from (default `default`). */
  builtin?: string;
  /** Extra `-c key=value` overrides, applied after the harness's own. */
  configArgs?: string[];
}

/** What one task left behind: the returned result and the trajectory as it is on disk. */
export interface TaskRun {
  result: AgentResult;
  /** The trajectory file, parsed (the test fails if it is not valid JSON). */
  traj: Trajectory;
  config: Config;
  repo: string;
  /** Milliseconds the client was asked to wait between retries. */
  waits: number[];
  /** Warnings the model client printed. */
  warnings: string[];
  elapsedMs: number;
}

/**
 * Runs one task end to end: a real git repo in a temp dir, the config loaded like the CLI does,
 * the real model client talking HTTP to `server`, the local environment, the real tools. Retries
 * wait through a recording sleep (initial delay 1 s, no jitter), so backoff costs no time.
 */
export async function runTask(server: FakeLlmServer, o: TaskOptions = {}): Promise<TaskRun> {
  const dir = tempDir("patchloop-e2e-");
  const repo = join(dir, "repo");
  makeRepo(repo, { "app.py": "def add(a, b):\n    return a - b\n" });
  const anthropic = o.wire === "anthropic";
  const { config } = loadConfig({
    configArgs: [
      o.builtin ?? "default",
      `model.model_name=${anthropic ? "anthropic/claude-fake" : "openai/fake"}`,
      `model.base_url=${anthropic ? server.url : `${server.url}/v1`}`,
      "model.retry={max_tries: 3, initial_delay: 1, max_delay: 30}",
      "environment.environment_class=local",
      "environment.cwd=''",
      ...(o.configArgs ?? []),
    ],
    defaultConfig: "default",
  });
  const waits: number[] = [];
  const warnings: string[] = [];
  const model = createModel(config.model, {
    env: {},
    warn: (m) => warnings.push(m),
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 1,
  });
  const env = createLocalEnvironment({
    cwd: repo,
    timeout: config.environment.timeout,
    env: config.environment.env,
    captureLimit: config.environment.capture_limit,
  });
  const trajPath = join(dir, "out", "repo.traj.json");
  const t0 = Date.now();
  try {
    const result = await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task: "add() subtracts instead of adding",
      instance: { repo: "acme/app" },
      instanceId: "repo",
      trajectoryPath: trajPath,
    });
    const elapsedMs = Date.now() - t0;
    const traj = readTrajectory(trajPath);
    expect(traj.info.exit_status).toBe(result.exitStatus);
    expect(traj.info.exit_message).toBe(result.exitMessage);
    expect(traj.info.timing.ended_at).not.toBeNull();
    expect(traj.messages).toEqual(JSON.parse(JSON.stringify(result.trajectory.messages)));
    return { result, traj, config, repo, waits, warnings, elapsedMs };
  } finally {
    await env.close();
  }
}

/** Reads and parses a trajectory file; fails the test with the text when it is not JSON. */
export function readTrajectory(path: string): Trajectory {
  const text = readFileSync(path, "utf8");
  try {
    return JSON.parse(text) as Trajectory;
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message}): ${text.slice(0, 300)}`);
  }
}

/** The `messages` of the request the server received at `index`. */
export function requestMessages(server: FakeLlmServer, index: number): Array<Record<string, unknown>> {
  const body = server.requests[index]?.body as { messages?: Array<Record<string, unknown>> } | undefined;
  if (!body?.messages)
    throw new Error(`request ${index} has no messages (${server.requests.length} received)`);
  return body.messages;
}

/** The format-error text of the default config (tool_calls) for `error`. */
export function defaultFormatError(error: string): string {
  return `Your reply could not be run: ${error}\nReply again with one or more tool calls.`;
}
