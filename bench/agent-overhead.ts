import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "../src/agent/agent.js";
import { createActionRunner } from "../src/agent/create-runner.js";
import { loadConfig } from "../src/config/load.js";
import { createLocalEnvironment } from "../src/environments/local.js";
import { createModel } from "../src/models/factory/create-model.js";
import { startFakeLlmServer } from "../src/testing/fake-llm-server.js";
import { makeBenchRepo } from "./repo.js";

const now = () => Number(process.hrtime.bigint()) / 1e6;

function rawRoundTrip(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/chat/completions`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve());
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function rawBash(cwd: string): Promise<void> {
  return new Promise((resolve) => {
    const c = spawn("bash", ["-c", "true"], { cwd, stdio: "ignore" });
    c.on("close", () => resolve());
  });
}

/**
 * Scaffold overhead per step: the agent loop against a zero-latency OpenAI-compatible server on
 * 127.0.0.1 (each step: one model call, one `true` through the bash tool), compared with the floor
 * measured in the same run: one raw HTTP round trip plus one raw `bash -c true` spawn.
 */
export async function benchAgentOverhead(steps = 200): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-"));
  const repo = join(dir, "repo");
  makeBenchRepo(repo);
  const server = await startFakeLlmServer({
    record: false,
    defaultBehaviour: {
      type: "reply",
      content: "step",
      toolCalls: [{ name: "bash", arguments: { command: "true" } }],
      usage: { prompt_tokens: 1000, completion_tokens: 20 },
    },
  });
  try {
    const { config } = loadConfig({
      configArgs: [
        "default",
        "model.model_name=openai/bench",
        `model.base_url=${server.url}/v1`,
        `agent.step_limit=${steps}`,
        "agent.cost_limit=0",
      ],
      defaultConfig: "default",
    });
    const floorBody = JSON.stringify({ model: "bench", messages: [{ role: "user", content: "x" }] });
    for (let i = 0; i < 20; i++) await rawRoundTrip(server.url, floorBody);
    for (let i = 0; i < 20; i++) await rawBash(repo);
    let t = now();
    for (let i = 0; i < steps; i++) await rawRoundTrip(server.url, floorBody);
    const httpMs = (now() - t) / steps;
    t = now();
    for (let i = 0; i < steps; i++) await rawBash(repo);
    const bashMs = (now() - t) / steps;

    const env = createLocalEnvironment({ cwd: repo, timeout: 60 });
    const model = createModel(config.model, { env: {} });
    t = now();
    const result = await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task: "bench",
      trajectoryPath: join(dir, "t.traj.json"),
    });
    const agentMs = (now() - t) / steps;
    await env.close();
    if (result.exitStatus !== "LimitsExceeded")
      throw new Error(`bench agent ended with ${result.exitStatus}: ${result.exitMessage}`);
    const floor = httpMs + bashMs;
    return {
      steps,
      agent_ms_per_step: round(agentMs),
      floor_http_ms: round(httpMs),
      floor_bash_ms: round(bashMs),
      floor_ms: round(floor),
      ratio_to_floor: round(agentMs / floor),
      overhead_ms_per_step: round(agentMs - floor),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round(x * 100) / 100;
