import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/load.js";
import { DEMO_REPO, DEMO_TASK, writeDemoRepo } from "../../../src/demo/repo.js";
import { createBwrapEnvironment } from "../../../src/environments/bwrap.js";
import { createModel } from "../../../src/models/factory/create-model.js";
import { disposeRuntimes } from "../../../src/models/gguf/runtime.js";
import { runTask } from "../../../src/task/run-task.js";
import { ACTION_LEAN, writeTinyModel } from "../../../src/testing/gguf-tiny-model.js";
import { describeWithEngine } from "../../support/engines.js";
import { describeWithGguf } from "../../support/gguf-runtime.js";

/**
 * The embedded runtime in the whole loop: the tiny random model of test/support runs the demo task
 * (src/demo/) through runTask, in a bwrap sandbox over the demo repository, with each protocol.
 * Every reply must be an action the grammar forced (no format error), and the task must end at its
 * step limit with every step run.
 */
const STEPS = 3;

let dir: string;
let modelPath: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-demo-"));
  modelPath = writeTinyModel(dir, { lean: ACTION_LEAN });
});
afterAll(async () => {
  await disposeRuntimes();
  rmSync(dir, { recursive: true, force: true });
});

async function runDemo(protocol: "backticks" | "tool_calls") {
  writeDemoRepo();
  const { config } = loadConfig({
    configArgs: [
      "default",
      `model.model_name=gguf:${modelPath}`,
      `agent.protocol=${protocol}`,
      protocol === "backticks" ? "agent.tools=[bash]" : "agent.tools=[bash,str_replace_editor]",
      "agent.action_tag=bash",
      `agent.step_limit=${STEPS}`,
      "model.model_kwargs.temperature=1",
      "model.model_kwargs.seed=11",
      "model.model_kwargs.max_tokens=3000",
      "model.gguf.context_size=32768",
      "model.gguf.threads=1",
      "model.gguf.gpu_layers=0",
    ],
    defaultConfig: "default",
  });
  const trajectoryPath = join(dir, protocol, "demo.traj.json");
  const outcome = await runTask({
    config,
    instanceId: "textstats-1",
    task: DEMO_TASK,
    instance: { repo: "patchloop/textstats", instance_id: "textstats-1", problem_statement: DEMO_TASK },
    model: () => createModel(config.model),
    modelName: config.model.model_name,
    trajectoryPath,
    open: async () => {
      const env = createBwrapEnvironment({ repoDir: DEMO_REPO, timeout: 30 });
      return { env, cleanup: () => env.close() };
    },
    signal: new AbortController().signal,
  });
  const traj = JSON.parse(readFileSync(trajectoryPath, "utf8"));
  return { outcome, traj };
}

describeWithGguf("the embedded GGUF model in the agent loop", () => {
  describeWithEngine("bwrap", "the demo task in a sandbox", () => {
    for (const protocol of ["backticks", "tool_calls"] as const) {
      it(`runs the demo task to its step limit with grammar-forced actions (${protocol})`, async () => {
        const { outcome, traj } = await runDemo(protocol);
        expect(outcome.exit_status).toBe("LimitsExceeded");
        expect(outcome.api_calls).toBe(STEPS);
        const replies = traj.messages.filter((m: { role: string }) => m.role === "assistant");
        expect(replies).toHaveLength(STEPS);
        for (const r of replies) expect(r.extra.actions).toHaveLength(1);
        expect(traj.messages.some((m: { extra?: { format_error?: boolean } }) => m.extra?.format_error)).toBe(
          false,
        );
        // The prefix cache: every later step evaluates only what was added since the one before (the
        // first may reuse the system prompt another task left in the shared sequence).
        type Usage = { prompt_tokens: number; cached_tokens: number };
        const usage: Usage[] = replies.map((r: { extra: { usage: Usage } }) => r.extra.usage);
        for (const [i, r] of replies.entries())
          expect(r.extra.raw.evaluated_tokens).toBe(usage[i].prompt_tokens - usage[i].cached_tokens);
        for (let i = 1; i < usage.length; i++)
          expect(usage[i].cached_tokens).toBeGreaterThanOrEqual(usage[i - 1].prompt_tokens);
      }, 240_000);
    }
  });
});
