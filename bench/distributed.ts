import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { BatchOptions } from "../src/batch/run-batch.js";
import { runBatch } from "../src/batch/run-batch.js";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import type { SwebenchInstance } from "../src/dataset/types.js";
import { createCoordinatorDispatcher } from "../src/distributed/coordinator-dispatch.js";
import { parseQueueUrl } from "../src/distributed/queue-url.js";
import {
  CALLS_PER_INSTANCE,
  fixture,
  listScheduleMs,
  STEPWISE,
  seeded,
  startServerProcess,
} from "./throughput.js";

/** Options of `benchDistributed`; every field has a default. */
export interface DistributedOptions {
  /** Instances (default 200, or PATCHLOOP_BENCH_INSTANCES). */
  instances?: number;
  /** Instances at once in all (default 64): one process with -w 64, or the workers' slots together. */
  slots?: number;
  /** `patchloop worker` processes sharing the slots (default 4). */
  workerProcesses?: number;
  /** Milliseconds per reply (default 5000) and its spread (default 0.5), as throughput-served. */
  latencyMs?: number;
  jitter?: number;
}

const REDIS = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p));
const BIN = fileURLToPath(new URL("../../bin/patchloop.js", import.meta.url));
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** CPU milliseconds a process used so far (Linux /proc; 0 elsewhere). */
function procCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
  } catch {
    return 0;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(
  dir: string,
): Promise<{ url: string; proc: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const proc = spawn(
    REDIS as string,
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes"],
    {
      stdio: "ignore",
    },
  );
  const url = `redis://127.0.0.1:${port}/0`;
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once("error", () => resolve(true)); // the port is taken: redis listens
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(false)));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    proc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

/** One batch through `runBatch` in this process (the coordinator, or the whole run), timed. */
async function timed(o: BatchOptions): Promise<{ wallMs: number; cpuMs: number; submitted: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runBatch(o);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return {
    wallMs,
    cpuMs: (c.user + c.system) / 1000,
    submitted: r.outcomes.filter((x) => x.exit_status === "Submitted").length,
  };
}

/**
 * The same `instances` (3 model calls each, at a served model's latency) run two ways on this
 * machine: one process with `slots` workers, and a coordinator (this process) with
 * `workerProcesses` `patchloop worker` processes of slots / workerProcesses each, through a
 * redis-server of its own. Both get the same seeded reply latencies; efficiency = ideal / measured,
 * the ideal being those latencies plus the commands' time scheduled on `slots` (as throughput.ts).
 * The coordinator's CPU per instance says how many instances per second one coordinator can
 * absorb (1000 / ms per instance, on one core); the workers' and Redis's CPU are shown beside it.
 */
export async function benchDistributed(opts: DistributedOptions = {}): Promise<Record<string, unknown>> {
  if (!REDIS) return { skipped: "redis-server is not installed (apt-get install redis-server)" };
  const count = opts.instances ?? (Number(process.env.PATCHLOOP_BENCH_INSTANCES) || 200);
  const slots = opts.slots ?? 64;
  const procs = opts.workerProcesses ?? 4;
  const latency = opts.latencyMs ?? 5000;
  const jitter = opts.jitter ?? 0.5;
  const loadAtStart = loadavg().map((x) => round(x, 2));
  const root = mkdtempSync(join(tmpdir(), "patchloop-bench-dist-"));
  const { reposDir, rows } = fixture(root, count);
  const reply = {
    type: "reply" as const,
    content: "step",
    toolCalls: [{ name: "bash", arguments: { command: STEPWISE } }],
  };
  const usage = { prompt_tokens: 1000, completion_tokens: 20 };
  const server = await startServerProcess({ ...reply, usage, delayMs: latency });
  mkdirSync(join(root, "redis"));
  const redis = await startRedis(join(root, "redis"));
  const { config } = loadConfig({
    configArgs: [
      "swebench",
      "model.model_name=openai/bench",
      `model.base_url=${server.url}/v1`,
      "environment.environment_class=local",
      "agent.step_limit=10",
    ],
    defaultConfig: "swebench",
  });
  const next = seeded(11);
  const delays = Array.from({ length: count * CALLS_PER_INSTANCE }, () =>
    Math.round(latency * (1 - jitter + 2 * jitter * next())),
  );
  /** The ideal makespan of these latencies (commands: `commandMs` per instance) on `slots`. */
  const ideal = (commandMs: number) =>
    listScheduleMs(
      Array.from({ length: count }, (_, i) =>
        delays.slice(i * CALLS_PER_INSTANCE, (i + 1) * CALLS_PER_INSTANCE).reduce((a, b) => a + b, commandMs),
      ),
      slots,
    );
  const base = (out: string, rowsNow: SwebenchInstance[], cfg: Config): BatchOptions => ({
    config: cfg,
    instances: rowsNow,
    outputDir: out,
    reposDir,
    warn: () => {},
  });
  const workers: ChildProcess[] = [];
  try {
    // The commands' own time per instance, from a short calibration (replies after 200 ms).
    await server.enqueue(Array(10 * CALLS_PER_INSTANCE).fill({ ...reply, usage, delayMs: 200 }));
    const cal = await timed({ ...base(join(root, "cal"), rows.slice(0, 10), config), workers: 1 });
    const commandMs = Math.max(0, cal.wallMs / 10 - CALLS_PER_INSTANCE * 200);
    const idealMs = ideal(commandMs);

    await server.enqueue(delays.map((delayMs) => ({ ...reply, usage, delayMs })));
    const one = await timed({ ...base(join(root, "one"), rows, config), workers: slots });

    for (let i = 0; i < procs; i++) {
      const w = spawn(
        process.execPath,
        [
          BIN,
          "worker",
          "--queue",
          redis.url,
          "-w",
          String(Math.ceil(slots / procs)),
          "--environment",
          "local",
          "--repos-dir",
          reposDir,
          "--base-url",
          `${server.url}/v1`,
          "--spool",
          join(root, "spool"),
        ],
        { stdio: ["ignore", "ignore", "ignore"] },
      );
      workers.push(w);
    }
    await new Promise((r) => setTimeout(r, 3000));
    const cpu0 = workers.map((w) => procCpuMs(w.pid));
    const redis0 = procCpuMs(redis.proc.pid);
    await server.enqueue(delays.map((delayMs) => ({ ...reply, usage, delayMs })));
    const queue = parseQueueUrl(redis.url);
    const dist = await timed({
      ...base(join(root, "dist"), rows, config),
      dispatch: (folder) =>
        createCoordinatorDispatcher({ queue, config, modelName: "openai/bench", say: () => {} }, folder),
    });
    const workerCpu = workers.reduce((s, w, i) => s + procCpuMs(w.pid) - cpu0[i], 0);
    const redisCpu = procCpuMs(redis.proc.pid) - redis0;
    if (one.submitted !== count || dist.submitted !== count)
      throw new Error(
        `bench: ${one.submitted} (one process) and ${dist.submitted} (queue) of ${count} submitted`,
      );
    const coordinatorMs = dist.cpuMs / count;
    return {
      instances: count,
      slots,
      worker_processes: procs,
      latency_ms: latency,
      latency_jitter: jitter,
      calls_per_instance: CALLS_PER_INSTANCE,
      command_ms_per_instance: round(commandMs, 1),
      ideal_s: round(idealMs / 1000, 2),
      one_process: {
        wall_s: round(one.wallMs / 1000, 2),
        efficiency: round(idealMs / one.wallMs),
        cpu_ms_per_instance: round(one.cpuMs / count, 1),
      },
      coordinator_and_workers: {
        wall_s: round(dist.wallMs / 1000, 2),
        efficiency: round(idealMs / dist.wallMs),
        coordinator_cpu_ms_per_instance: round(coordinatorMs, 2),
        workers_cpu_ms_per_instance: round(workerCpu / count, 1),
        redis_cpu_ms_per_instance: round(redisCpu / count, 2),
      },
      // One core's worth of coordinator time: instances per second it can take in at this
      // fixture's 3 calls; the bound at 50 calls charges all of it to the calls (progress events).
      coordinator_absorbs_instances_per_s: round(1000 / coordinatorMs, 1),
      coordinator_absorbs_instances_per_s_at_50_calls_bound: round(
        1000 / ((coordinatorMs * 50) / CALLS_PER_INSTANCE),
        1,
      ),
      cpus: availableParallelism(),
      load_average_at_start: loadAtStart,
    };
  } finally {
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(
      workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once("exit", r)))),
    );
    await redis.stop();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
