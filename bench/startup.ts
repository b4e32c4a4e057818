import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDrainServer } from "./drain-client.js";
import { makeBenchRepo } from "./repo.js";

const BIN = fileURLToPath(new URL("../../bin/patchloop.js", import.meta.url));

/**
 * A module given to the child with `--import`: writes its peak RSS (KiB, VmHWM of /proc/self/status)
 * to $PATCHLOOP_BENCH_RSS at exit. Not getrusage's maxRSS: on Linux a spawned child starts with
 * its parent's, which is the bench process's own size.
 */
const RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  'import{readFileSync,writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.PATCHLOOP_BENCH_RSS,/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status","utf8"))[1]));',
)}`;

interface OneRun {
  firstRequestMs: number;
  wallMs: number;
  peakRssMb: number;
}

async function oneRun(dir: string, i: number, args: string[], steps: number): Promise<OneRun> {
  const server = await startDrainServer("true");
  const rssFile = join(dir, `rss-${i}`);
  try {
    const t0 = Date.now();
    // Started as the `patchloop` command is (bin/patchloop.js run as a program, with the node
    // options its first lines give), the hook passed in NODE_OPTIONS.
    const child = spawn(
      BIN,
      [...args, "-m", "openai/bench", "--base-url", `${server.url}/v1`, "-c", `agent.step_limit=${steps}`],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: {
          ...process.env,
          PATCHLOOP_BENCH_RSS: rssFile,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${RSS_HOOK}`.trim(),
        },
      },
    );
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const wallMs = Date.now() - t0;
    const c = await server.counters();
    if (c.requests !== steps || c.firstRequestAt === null)
      throw new Error(`bench startup: ${c.requests} requests (exit ${code}): ${stderr.slice(-500)}`);
    return {
      firstRequestMs: c.firstRequestAt - t0,
      wallMs,
      peakRssMb: Number(readFileSync(rssFile, "utf8")) / 1024,
    };
  } finally {
    await server.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number) => Math.round(x * 100) / 100;

/**
 * Fixed costs of `patchloop run` (one task, local environment, a zero-latency model server):
 * seconds from spawning the process to the model server receiving the first request, and the peak
 * RSS of the whole one-task run (`steps` model calls), each the median of `runs`. The floor in
 * the same run: a bare `node -e` that makes one HTTP request (Node's own start-up and baseline memory).
 */
export async function benchStartup(
  o: { runs?: number; steps?: number } = {},
): Promise<Record<string, number>> {
  const runs = o.runs ?? 5;
  const steps = o.steps ?? 10;
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-startup-"));
  try {
    const repo = join(dir, "repo");
    makeBenchRepo(repo);
    const results: OneRun[] = [];
    for (let i = 0; i < runs; i++)
      results.push(
        await oneRun(
          dir,
          i,
          [
            "run",
            "--repo",
            repo,
            "--task",
            "bench",
            "-o",
            join(dir, `out-${i}`),
            "--environment",
            "local",
            "--quiet",
          ],
          steps,
        ),
      );
    const floor: OneRun[] = [];
    for (let i = 0; i < runs; i++) floor.push(await nodeFloor(dir, i));
    const first = median(results.map((r) => r.firstRequestMs));
    const rss = median(results.map((r) => r.peakRssMb));
    const floorFirst = median(floor.map((r) => r.firstRequestMs));
    const floorRss = median(floor.map((r) => r.peakRssMb));
    return {
      runs,
      steps,
      start_to_first_request_s: round(first / 1000),
      one_task_wall_s: round(median(results.map((r) => r.wallMs)) / 1000),
      one_task_peak_rss_mb: round(rss),
      node_floor_first_request_s: round(floorFirst / 1000),
      node_floor_rss_mb: round(floorRss),
      first_request_over_floor: round(first / floorFirst),
      rss_over_floor: round(rss / floorRss),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Node alone: start, one POST to the server with node:http (as patchloop's transport), exit. */
async function nodeFloor(dir: string, i: number): Promise<OneRun> {
  const server = await startDrainServer("true");
  const rssFile = join(dir, `floor-rss-${i}`);
  try {
    const script = `import { request } from "node:http"; await new Promise((ok) => request(process.argv[1] + "/v1/chat/completions", { method: "POST" }, (r) => r.resume().on("end", ok)).end("{}"));`;
    const t0 = Date.now();
    const child = spawn(
      process.execPath,
      ["--import", RSS_HOOK, "--input-type=module", "-e", script, server.url],
      {
        stdio: "ignore",
        env: { ...process.env, PATCHLOOP_BENCH_RSS: rssFile },
      },
    );
    await new Promise((resolve) => child.on("close", resolve));
    const wallMs = Date.now() - t0;
    const c = await server.counters();
    if (c.firstRequestAt === null) throw new Error("bench startup: the node floor made no request");
    return {
      firstRequestMs: c.firstRequestAt - t0,
      wallMs,
      peakRssMb: Number(readFileSync(rssFile, "utf8")) / 1024,
    };
  } finally {
    await server.close();
  }
}
