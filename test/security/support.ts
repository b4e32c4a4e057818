import { type AgentResult, runAgent } from "../../src/agent/agent.js";
import { createActionRunner } from "../../src/agent/create-runner.js";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { createEnvironment } from "../../src/environments/index.js";
import type { Environment } from "../../src/environments/types.js";
import { ScriptedModel, type ScriptedResponse } from "../../src/models/scripted.js";
import { testImage } from "../support/engines.js";
import { makeRepo } from "../support/git-repo.js";

/** The environments the hostile scripted model is let loose in. */
export type Sandbox = "bwrap" | "docker";

/** A git repository with one commit, as a task's work tree. */
export function makeWorkRepo(dir: string): string {
  makeRepo(dir, { "app.py": "print('hello')\n" });
  return dir;
}

/** The config of a hostile run: tool calls with bash and the editor, small limits, in `sandbox`. */
export function hostileConfig(sandbox: Sandbox, extra: string[] = []): Config {
  return loadConfig({
    configArgs: [
      "default",
      "model.model_name=scripted",
      `environment.environment_class=${sandbox}`,
      "environment.timeout=20",
      "environment.pids_limit=200",
      "environment.memory=1g",
      // The docker test image has no git: the submission is the marker alone, no diff is taken.
      ...(sandbox === "docker"
        ? [`environment.image=${testImage("docker")}`, "agent.diff_on_exit=false"]
        : []),
      ...extra,
    ],
    defaultConfig: "default",
  }).config;
}

/** The environment of a task on `repo` in `sandbox` (docker mounts it at its host path). */
export function openSandbox(config: Config, repo: string): Promise<Environment> {
  return createEnvironment(config.environment, { workFolder: repo });
}

/** A scripted reply calling bash. */
export function bashCall(command: string): ScriptedResponse {
  return { content: "next", toolCalls: [{ name: "bash", arguments: { command } }] };
}

/** A scripted reply calling str_replace_editor with `args`. */
export function editorCall(args: Record<string, unknown>): ScriptedResponse {
  return { content: "edit", toolCalls: [{ name: "str_replace_editor", arguments: args }] };
}

/** What a hostile run left: its result and the text the model saw after each of its replies. */
export interface HostileRun {
  result: AgentResult;
  /** The observation (tool message text) that answered each reply, in order. */
  seen: string[];
}

/**
 * Runs the agent with a scripted model that sends `replies` (then, if the run has not ended, one
 * more reply that submits), in `env`. The run must end with an exit status: a scaffold crash fails
 * the test.
 */
export async function hostileRun(
  config: Config,
  env: Environment,
  replies: ScriptedResponse[],
  trajectoryPath?: string,
): Promise<HostileRun> {
  const withGit = config.environment.environment_class !== "docker";
  const model = new ScriptedModel([
    ...replies,
    bashCall(
      withGit
        ? "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
        : "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ),
  ]);
  const result = await runAgent({
    config,
    model,
    env,
    runner: createActionRunner(config),
    task: "hostile",
    trajectoryPath,
    ...(withGit ? {} : { baseCommit: "none" }),
  });
  const seen: string[] = [];
  const messages = result.trajectory.messages;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    const answer = messages
      .slice(i + 1)
      .find((m) => m.role === "tool" || m.role === "user" || m.role === "assistant");
    seen.push(answer && answer.role !== "assistant" ? String(answer.content) : "");
  }
  return { result, seen };
}
