import { fork, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Trajectory } from "../src/agent/trajectory-types.js";
import { runBatch } from "../src/batch/run-batch.js";
import type { TaskOutcome } from "../src/batch/types.js";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import type { SwebenchInstance } from "../src/dataset/types.js";
import { prepareWorkspace } from "../src/instance/workspace.js";
import type { FakeBehaviour } from "../src/testing/fake-llm-server.js";
import { makeBenchRepo } from "./repo.js";

/** Options of `benchThroughput`; every field has a default. */
export interface ThroughputOptions {
  /** Instances per worker count (default 200, or PATCHLOOP_BENCH_INSTANCES). */
  instances?: number;
  /** Worker counts to measure (default 1, 8, 32, 64). */
  workers?: number[];
  /** Milliseconds the fake server waits before each reply (default 200). */
  latencyMs?: number;
  /**
   * Spread of the latency: each reply waits latency × (1 ± jitter), uniformly, from a seeded
   * sequence (default 0: every reply waits exactly `latencyMs`, which keeps instances in lockstep).
   */
  jitter?: number;
}

export const CALLS_PER_INSTANCE = 3;

/** The longest reply latency of the one-worker calibration run (see benchThroughput). */
const CALIBRATION_LATENCY_MS = 200;

/** The one reply of the fake model: call 1 fixes the bug, call 2 shows the diff stat, call 3 submits. */
export const STEPWISE = [
  // The step counter uses builtins only: it is bench machinery, not the agent's work.
  "n=0; [ -f .git/bench_steps ] && read -r n < .git/bench_steps; n=$((n + 1)); echo $n > .git/bench_steps",
  "if [ $n -eq 1 ]; then sed -i 's/a - b  # BUG/a + b/' calc.py; elif [ $n -eq 2 ]; then git diff --stat; " +
    "else echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached; fi",
].join("; ");

/** One small repository (`bench__calc` in the repos folder) and `count` instances at its base commit. */
export function fixture(root: string, count: number): { reposDir: string; rows: SwebenchInstance[] } {
  const reposDir = join(root, "repos");
  const repo = join(reposDir, "bench__calc");
  const base = makeBenchRepo(repo, {
    "calc.py": "def add(a, b):\n    return a - b  # BUG\n",
    "README.md": "calc\n",
  });
  const rows = Array.from({ length: count }, (_, i) => ({
    repo: "bench/calc",
    instance_id: `bench__calc-${i + 1}`,
    base_commit: base,
    patch: "",
    test_patch: "",
    problem_statement: `add() subtracts (instance ${i + 1})`,
    hints_text: "",
    created_at: "2026-01-01T00:00:00Z",
    version: "1.0",
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    environment_setup_commit: base,
  }));
  return { reposDir, rows };
}

/** A small seeded PRNG (mulberry32): the same latencies on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The makespan of `durations` (ms) run in order on `workers` slots, each started on the first slot
 * to come free, as the batch starts instances. With equal durations it is ceil(n / workers) × d.
 */
export function listScheduleMs(durations: number[], workers: number): number {
  const free = Array<number>(Math.max(1, workers)).fill(0);
  for (const d of durations) {
    let i = 0;
    for (let k = 1; k < free.length; k++) if (free[k] < free[i]) i = k;
    free[i] += d;
  }
  return Math.max(...free);
}

/** Milliseconds the agent's commands took in one trajectory (the observations' `duration_ms`). */
export function commandMs(t: Trajectory): number {
  return t.messages.reduce(
    (sum, m) => sum + (typeof m.extra?.duration_ms === "number" ? m.extra.duration_ms : 0),
    0,
  );
}

/** CPU milliseconds used so far by this process and by its waited-for children (Linux /proc). */
function cpuMs(): { self: number; children: number } {
  const self = process.cpuUsage();
  let children = 0;
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // fields[0] is field 3 (state); cutime and cstime are fields 16 and 17, in clock ticks (100 per second).
    children = ((Number(fields[13]) + Number(fields[14])) / 100) * 1000;
  } catch {
    // not Linux: children unknown
  }
  return { self: (self.user + self.system) / 1000, children };
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** One batch run's measurements. */
interface Measured {
  wallMs: number;
  cpu: { self: number; children: number };
  elu: number;
  peakRss: number;
  outcomes: TaskOutcome[];
  /** Per instance: milliseconds its commands took. */
  commandMs: number[];
}

/** Runs the batch on `rows` with `workers` and measures it; throws unless every instance submitted. */
async function measure(
  config: Config,
  rows: SwebenchInstance[],
  reposDir: string,
  out: string,
  workers: number,
): Promise<Measured> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const cpu0 = cpuMs();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const r = await runBatch({ config, instances: rows, outputDir: out, workers, reposDir, warn: () => {} });
  const wallMs = performance.now() - t0;
  const cpu1 = cpuMs();
  const elu = performance.eventLoopUtilization(elu0).utilization;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const submitted = r.outcomes.filter((o) => o.exit_status === "Submitted").length;
  if (submitted !== rows.length)
    throw new Error(`bench: ${submitted} of ${rows.length} instances submitted at ${workers} workers`);
  const traj = (id: string) =>
    JSON.parse(readFileSync(join(out, id, `${id}.traj.json`), "utf8")) as Trajectory;
  const cmd = rows.map((row) => commandMs(traj(row.instance_id)));
  rmSync(out, { recursive: true, force: true });
  return {
    wallMs,
    cpu: { self: cpu1.self - cpu0.self, children: cpu1.children - cpu0.children },
    elu,
    peakRss: peak,
    outcomes: r.outcomes,
    commandMs: cmd,
  };
}

/** The fake model server, running in a child process (see fake-server-process.ts). */
export interface ServerProcess {
  url: string;
  enqueue(behaviours: FakeBehaviour[]): Promise<void>;
  close(): Promise<void>;
}

export function startServerProcess(defaultBehaviour: FakeBehaviour): Promise<ServerProcess> {
  const child = fork(fileURLToPath(new URL("./fake-server-process.js", import.meta.url)), [
    JSON.stringify(defaultBehaviour),
  ]);
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once("message", (m) => resolve(m as Record<string, unknown>));
      child.once("exit", (code) => reject(new Error(`bench: the fake server process exited (${code})`)));
    });
  return next().then((hello) => ({
    url: String(hello.url),
    async enqueue(behaviours) {
      const acked = next();
      child.send({ enqueue: behaviours });
      await acked;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  }));
}

/** Runs `script` with bash and `args`; rejects unless it exits 0. */
function bash(script: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script, "floor", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`bench: the floor script failed (${code}): ${err.slice(-500)}`)),
    );
  });
}

/**
 * The machine floor: the wall time of the same instances' work with no scaffold and no model, at
 * the same concurrency: `workers` plain bash processes, each taking its share of the instances in
 * turn: the checkout of the base commit, then the three commands, each in a new `bash -c` (as the
 * bash tool runs them). The repositories are made before the clock starts and removed after it
 * stops. No scaffold can finish the run sooner on this machine.
 */
async function machineFloorMs(
  rows: SwebenchInstance[],
  reposDir: string,
  root: string,
  workers: number,
): Promise<number> {
  const wsRoot = mkdtempSync(join(root, "floor-"));
  try {
    const spaces = await Promise.all(rows.map((row) => prepareWorkspace(reposDir, row, wsRoot)));
    const shares: string[][] = Array.from({ length: Math.min(workers, rows.length) }, () => []);
    for (const [i, ws] of spaces.entries()) shares[i % shares.length].push(ws.dir);
    const script =
      'for d in "$@"; do (cd "$d" && git -c advice.detachedHead=false checkout -q --detach "$BASE" && ' +
      'for ((i = 0; i < CALLS; i++)); do bash -c "$STEP" || exit 1; done) >/dev/null || exit 1; done';
    const env = { BASE: rows[0].base_commit, STEP: STEPWISE, CALLS: String(CALLS_PER_INSTANCE) };
    const t0 = performance.now();
    await Promise.all(shares.map((dirs) => bash(script, dirs, env)));
    const ms = performance.now() - t0;
    const fixed = readFileSync(join(spaces[0].dir, "calc.py"), "utf8");
    if (!fixed.includes("a + b")) throw new Error("bench: the floor run did not apply the fix");
    return ms;
  } finally {
    rmSync(wsRoot, { recursive: true, force: true });
  }
}

/**
 * Batch throughput: `instances` short instances (3 model calls: 2 cheap commands and a submit)
 * against a fake OpenAI-compatible server on 127.0.0.1 that answers after `latencyMs`, in the
 * local environment (a fresh checkout per instance), at each worker count.
 * - efficiency = ideal / measured, the ideal being the makespan of the instances' floors started
 *   in order on `workers` slots (listScheduleMs; without jitter, ceil(instances / workers) waves).
 *   An instance's floor: its model calls' latencies (the queued ones, three at a time, in order)
 *   + its commands' time, the latter measured in a
 *   calibration run of 10 instances with one worker (replies after at most 200 ms, no jitter).
 *   Everything else the scaffold does per instance (checkout, trajectory and preds writes,
 *   cleanup, process spawns, CPU contention) counts against it.
 * - instance_efficiency: the floor / the mean measured instance time (how much concurrency slows
 *   each instance; with jitter the makespan also waits for the unluckiest instances).
 * - machine_floor_s: the same instances' checkouts and commands run by plain bash at the same
 *   concurrency, with no scaffold and no model (see machineFloorMs): on a machine with few cores
 *   the commands alone can take longer than the ideal. efficiency_vs_floor = the larger of the
 *   ideal and that floor / the measured time: what the scaffold itself costs.
 * - event_loop_utilization near 1: this process's main thread is the bottleneck.
 * - peak_rss_mb: sampled every 20 ms during the run (the process is shared by all runs).
 */
export async function benchThroughput(opts: ThroughputOptions = {}): Promise<Record<string, unknown>> {
  const loadAtStart = loadavg().map((x) => round(x, 2));
  const count = opts.instances ?? (Number(process.env.PATCHLOOP_BENCH_INSTANCES) || 200);
  const workerCounts = opts.workers ?? [1, 8, 32, 64];
  const latency = opts.latencyMs ?? 200;
  const jitter = Math.min(1, Math.max(0, opts.jitter ?? 0));
  const root = mkdtempSync(join(tmpdir(), "patchloop-bench-tp-"));
  const { reposDir, rows } = fixture(root, count);
  const server = await startServerProcess({
    type: "reply",
    content: "step",
    toolCalls: [{ name: "bash", arguments: { command: STEPWISE } }],
    usage: { prompt_tokens: 1000, completion_tokens: 20 },
    delayMs: latency,
  });
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
  const reply = {
    type: "reply" as const,
    content: "step",
    toolCalls: [{ name: "bash", arguments: { command: STEPWISE } }],
  };
  const next = seeded(7);
  /** Queues one reply per delay, in order (the default answers any extra call). */
  const queueReplies = async (delays: number[]) => {
    await server.enqueue(
      delays.map((delayMs) => ({ ...reply, usage: { prompt_tokens: 1000, completion_tokens: 20 }, delayMs })),
    );
  };
  const results: Record<string, unknown>[] = [];
  let floorMs = 0;
  let calibration: Record<string, number> = {};
  try {
    const calRows = rows.slice(0, Math.min(10, count));
    // The calibration measures the commands' own time, which does not depend on the latency: its
    // replies come after at most CALIBRATION_LATENCY_MS, so a long latency does not make it slow.
    await queueReplies(
      Array(calRows.length * CALLS_PER_INSTANCE).fill(Math.min(latency, CALIBRATION_LATENCY_MS)),
    );
    const cal = await measure(config, calRows, reposDir, join(root, "calibrate"), 1);
    floorMs = CALLS_PER_INSTANCE * latency + median(cal.commandMs);
    calibration = {
      instances: cal.outcomes.length,
      median_command_ms: round(median(cal.commandMs), 1),
      mean_instance_s: round(mean(cal.outcomes.map((o) => o.seconds))),
      overhead_ms_per_instance: round(
        cal.wallMs / cal.outcomes.length -
          CALLS_PER_INSTANCE * Math.min(latency, CALIBRATION_LATENCY_MS) -
          median(cal.commandMs),
        1,
      ),
    };
    for (const workers of workerCounts) {
      const floorRunMs = await machineFloorMs(rows, reposDir, root, workers);
      // The latencies of this run's calls, in the order the server answers them.
      const delays = Array.from({ length: count * CALLS_PER_INSTANCE }, () =>
        Math.round(latency * (1 - jitter + 2 * jitter * next())),
      );
      if (jitter > 0) await queueReplies(delays);
      const m = await measure(config, rows, reposDir, join(root, `run-w${workers}`), workers);
      const commands = floorMs - CALLS_PER_INSTANCE * latency;
      const idealMs = listScheduleMs(
        Array.from({ length: count }, (_, i) => {
          const own = delays.slice(i * CALLS_PER_INSTANCE, (i + 1) * CALLS_PER_INSTANCE);
          return own.reduce((a, b) => a + b, 0) + commands;
        }),
        workers,
      );
      results.push({
        workers,
        wall_s: round(m.wallMs / 1000, 2),
        ideal_s: round(idealMs / 1000, 2),
        efficiency: round(idealMs / m.wallMs),
        machine_floor_s: round(floorRunMs / 1000, 2),
        efficiency_vs_floor: round(Math.max(idealMs, floorRunMs) / m.wallMs),
        instance_efficiency: round(floorMs / 1000 / mean(m.outcomes.map((o) => o.seconds))),
        event_loop_utilization: round(m.elu),
        instances_per_hour: Math.round((count / m.wallMs) * 3_600_000),
        peak_rss_mb: Math.round(m.peakRss / 2 ** 20),
        mean_instance_s: round(mean(m.outcomes.map((o) => o.seconds))),
        mean_environment_s: round(mean(m.outcomes.map((o) => o.environment_seconds))),
        median_command_ms: round(median(m.commandMs), 1),
        cpu_ms_per_instance: {
          node: round(m.cpu.self / count, 1),
          children: round(m.cpu.children / count, 1),
        },
      });
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return {
    instances: count,
    latency_ms: latency,
    latency_jitter: jitter,
    calls_per_instance: CALLS_PER_INSTANCE,
    instance_floor_ms: round(floorMs, 1),
    calibration,
    cpus: availableParallelism(),
    load_average_at_start: loadAtStart,
    runs: results,
  };
}
