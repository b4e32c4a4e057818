import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "../src/agent/agent.js";
import { createActionRunner } from "../src/agent/create-runner.js";
import { loadConfig } from "../src/config/load.js";
import { createLocalEnvironment } from "../src/environments/local.js";
import { createModel } from "../src/models/factory/create-model.js";
import { startDrainServer } from "./drain-client.js";
import { makeBenchRepo } from "./repo.js";

/** Lines of 100 characters making an observation of about `bytes` bytes. */
export function observationFile(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.length * 100 < bytes; i++)
    lines.push(`${String(i).padStart(5, "0")} ${"lorem ipsum dolor sit amet ".repeat(4).slice(0, 93)}`);
  return `${lines.join("\n")}\n`;
}

export interface LongRunFigures {
  steps: number;
  observation_bytes: number;
  /** Mean wall time of a step (model call + action + bookkeeping) over the first and last 50. */
  first50_ms_per_step: number;
  last50_ms_per_step: number;
  last50_over_first50: number;
  /** The same for the CPU time of this process (user + system). */
  first50_cpu_ms_per_step: number;
  last50_cpu_ms_per_step: number;
  cpu_last50_over_first50: number;
  trajectory_mb: number;
  request_mb_last: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round = (x: number) => Math.round(x * 100) / 100;

/**
 * A long task: `steps` model calls, each answered with one bash call printing a file of
 * `observationBytes` (10 kB by default), against drain-server.ts (zero latency, no parsing). The
 * step times come from the `model_call` events (wall and this process's CPU between two calls).
 * Under `full` every request re-sends the whole history, so the request itself grows; the figure
 * that must stay flat is the scaffold's work around it.
 */
export async function benchLongRun(
  o: { steps?: number; observationBytes?: number; configArgs?: string[] } = {},
): Promise<LongRunFigures> {
  const steps = o.steps ?? 300;
  const observationBytes = o.observationBytes ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-long-"));
  const repo = join(dir, "repo");
  makeBenchRepo(repo, { "obs.txt": observationFile(observationBytes) });
  const server = await startDrainServer("cat obs.txt");
  try {
    const { config } = loadConfig({
      configArgs: [
        "default",
        "model.model_name=openai/bench",
        `model.base_url=${server.url}/v1`,
        `agent.step_limit=${steps}`,
        "agent.cost_limit=0",
        `agent.output_limit=${observationBytes + 1000}`,
        ...(o.configArgs ?? []),
      ],
      defaultConfig: "default",
    });
    const env = createLocalEnvironment({ cwd: repo, timeout: 60 });
    const model = createModel(config.model, { env: {} });
    const wall: number[] = [];
    const cpu: number[] = [];
    const path = join(dir, "t.traj.json");
    const result = await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task: "bench",
      trajectoryPath: path,
      onEvent: (e) => {
        if (e.type !== "model_call") return;
        const c = process.cpuUsage();
        wall.push(performance.now());
        cpu.push((c.user + c.system) / 1000);
      },
    });
    await env.close();
    if (result.exitStatus !== "LimitsExceeded")
      throw new Error(`bench agent ended with ${result.exitStatus}: ${result.exitMessage}`);
    const d = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]);
    const dw = d(wall);
    const dc = d(cpu);
    const counters = await server.counters();
    const f50 = mean(dw.slice(0, 50));
    const l50 = mean(dw.slice(-50));
    const fc = mean(dc.slice(0, 50));
    const lc = mean(dc.slice(-50));
    return {
      steps,
      observation_bytes: observationBytes,
      first50_ms_per_step: round(f50),
      last50_ms_per_step: round(l50),
      last50_over_first50: round(l50 / f50),
      first50_cpu_ms_per_step: round(fc),
      last50_cpu_ms_per_step: round(lc),
      cpu_last50_over_first50: round(lc / fc),
      trajectory_mb: round(statSync(path).size / 2 ** 20),
      request_mb_last: round(counters.bytes / counters.requests / 2 ** 20),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
