import { type ChildProcess, fork, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { observationFile } from "./long-run.js";
import { makeBenchRepo } from "./repo.js";
import { fixture } from "./throughput.js";

/**
 * Started as the `patchloop` command is: the file run as a program, with the node options its first
 * lines give. PATCHLOOP_PEER_BIN names another checkout's bin/patchloop.js (a before/after pair).
 */
const BIN =
  process.env.PATCHLOOP_PEER_BIN ?? fileURLToPath(new URL("../../bin/patchloop.js", import.meta.url));
const DRIVER = fileURLToPath(new URL("../../bench/peer_mini.py", import.meta.url));
const PYTHON = process.env.PATCHLOOP_PEER_PYTHON ?? "/usr/bin/python3";

const HOW_TO_GET_MINI = `the peer benchmark needs a snapshot of mini-swe-agent's source (v2.4.6), given with
--mini-dir DIR or PATCHLOOP_MINI_DIR (DIR holds src/minisweagent). For example:
  git clone https://github.com/SWE-agent/mini-swe-agent /tmp/mini-git
  git -C /tmp/mini-git archive v2.4.6 | (mkdir -p /tmp/mini && tar -x -C /tmp/mini)
and its dependencies from Debian (litellm is not needed: bench/peer_mini.py brings its own model class):
  apt-get install python3-pydantic python3-jinja2 python3-yaml python3-requests python3-rich \\
    python3-typer python3-platformdirs python3-tenacity python3-dotenv`;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The peer benchmark's model server (peer-server.ts) in a process of its own. */
interface PeerServer {
  url: string;
  counters(reset?: boolean): Promise<{ requests: number; firstRequestAt: number | null; gaps: number[] }>;
  close(): Promise<void>;
}

function startPeerServer(command: string, latencyMs = 0): Promise<PeerServer> {
  const child = fork(fileURLToPath(new URL("./peer-server.js", import.meta.url)), [
    command,
    String(latencyMs),
  ]);
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once("message", (m) => resolve(m as Record<string, unknown>));
      child.once("exit", (code) => reject(new Error(`bench peer: the server exited (${code})`)));
    });
  return next().then((hello) => ({
    url: String(hello.url),
    async counters(reset = false) {
      const answer = next();
      child.send({ reset });
      const m = await answer;
      return {
        requests: Number(m.requests),
        firstRequestAt: m.firstRequestAt === null ? null : Number(m.firstRequestAt),
        gaps: m.gaps as number[],
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  }));
}

/** CPU seconds (user, system) of this process's waited-for children, from /proc/self/stat. */
function childrenCpu(): { user: number; sys: number } {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // f[0] is field 3; cutime and cstime are fields 16 and 17, in clock ticks (100 per second).
  return { user: Number(f[13]) / 100, sys: Number(f[14]) / 100 };
}

/** pid → parent pid, for every process now in /proc. */
function parents(): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const s = readFileSync(`/proc/${e}/stat`, "utf8");
      m.set(Number(e), Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return m;
}

/** The process tree under `root` (itself included). */
function tree(root: number): number[] {
  const pp = parents();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of pp) if (ppid === found[i]) found.push(pid);
  return found;
}

/** A process's /proc status text, read once per sample ("" once it has ended). */
function statusOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "";
  }
}

/** One `NAME: N kB` field of a status text, in kB (0 when absent). */
function statusKb(status: string, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(status);
  return m ? Number(m[1]) : 0;
}

export interface Measured {
  /** Seconds from spawn to the server's first request. */
  firstRequestS: number;
  wallS: number;
  /** User and system CPU seconds of the whole process tree (every waited-for descendant). */
  userS: number;
  sysS: number;
  /** The largest peak RSS (VmHWM) of any one process of the tree, MB, sampled every 50 ms. */
  largestRssMb: number;
  /** The largest sum of the tree's RSS at one sample, MB. */
  treeRssMb: number;
  /**
   * The largest private memory (RssAnon: heap, stacks, what the program made) of any one process,
   * MB: RSS without the program's and libraries' files (node's own binary is ~40 MB of its RSS).
   */
  largestAnonMb: number;
  requests: number;
  /** Median milliseconds between the end of a reply and the next request of the same conversation. */
  medianGapMs: number;
  stderr: string;
}

/** Runs `cmd args` to its end and measures it and its process tree; throws on a non-zero exit. */
async function measure(
  server: PeerServer,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<Measured> {
  await server.counters(true);
  const cpu0 = childrenCpu();
  const t0 = Date.now();
  const child: ChildProcess = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (c) => {
    stderr = (stderr + c).slice(-4000);
  });
  let largest = 0;
  let largestAnon = 0;
  let treeRss = 0;
  const sample = () => {
    if (child.pid === undefined || child.exitCode !== null) return;
    let sum = 0;
    for (const pid of tree(child.pid)) {
      const status = statusOf(pid);
      largest = Math.max(largest, statusKb(status, "VmHWM"));
      largestAnon = Math.max(largestAnon, statusKb(status, "RssAnon"));
      sum += statusKb(status, "VmRSS");
    }
    treeRss = Math.max(treeRss, sum);
  };
  const timer = setInterval(sample, 50);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearInterval(timer);
  const wallS = (Date.now() - t0) / 1000;
  const cpu1 = childrenCpu();
  const c = await server.counters();
  // patchloop run exits 1 when the task ends without a submission (the step limit): the request
  // count, checked by the caller, is what says the run did what it was asked.
  if (code === null || code > 1) throw new Error(`bench peer: ${cmd} exited with ${code}: ${stderr}`);
  const gaps = [...c.gaps].sort((a, b) => a - b);
  return {
    firstRequestS: c.firstRequestAt === null ? Number.NaN : (c.firstRequestAt - t0) / 1000,
    wallS,
    userS: cpu1.user - cpu0.user,
    sysS: cpu1.sys - cpu0.sys,
    largestRssMb: largest / 1024,
    largestAnonMb: largestAnon / 1024,
    treeRssMb: treeRss / 1024,
    requests: c.requests,
    medianGapMs: gaps.length ? gaps[Math.floor(gaps.length / 2)] : Number.NaN,
    stderr,
  };
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const load = () => loadavg().map(r2).join(" ");

/** One side's figures, and patchloop's over mini's for each. */
function compare(mini: Measured, pl: Measured, ideal?: number): Record<string, unknown> {
  const row = (m: Measured) => ({
    cpu_s: r2(m.userS + m.sysS),
    user_s: r2(m.userS),
    sys_s: r2(m.sysS),
    wall_s: r2(m.wallS),
    first_request_s: r2(m.firstRequestS),
    largest_rss_mb: r2(m.largestRssMb),
    largest_anon_mb: r2(m.largestAnonMb),
    tree_rss_mb: r2(m.treeRssMb),
    median_gap_ms: r2(m.medianGapMs),
    requests: m.requests,
    ...(ideal ? { wall_over_ideal: r2(m.wallS / ideal) } : {}),
  });
  return {
    mini: row(mini),
    patchloop: row(pl),
    patchloop_over_mini: {
      cpu: r2((pl.userS + pl.sysS) / (mini.userS + mini.sysS)),
      sys: r2(pl.sysS / mini.sysS),
      first_request: r2(pl.firstRequestS / mini.firstRequestS),
      largest_rss: r2(pl.largestRssMb / mini.largestRssMb),
      largest_anon: r2(pl.largestAnonMb / mini.largestAnonMb),
      tree_rss: r2(pl.treeRssMb / mini.treeRssMb),
      median_gap: r2(pl.medianGapMs / mini.medianGapMs),
      wall: r2(pl.wallS / mini.wallS),
    },
  };
}

/**
 * patchloop against mini-swe-agent (a source snapshot run with Debian's python3, see
 * peer_mini.py), both on the local environment, against the same scripted server
 * (peer-server.ts), runs interleaved (mini first, then patchloop, per case): one task of 100 steps
 * of `true`; 100 and 300 steps each printing 9.9 kB; a SWE-bench-style batch of 32 instances × 5
 * model calls at 8 and 32 workers, the server answering after 200 ms (ideal wall: waves × 5 × 200
 * ms). Figures per run: CPU (user + system) of the whole process tree, the largest process's and
 * the tree's peak RSS, the largest private memory (RssAnon) of one process, the median gap
 * between a reply and the next request (at the server), wall ÷ ideal for the batch.
 * `--mini-shell /bin/bash` runs mini's commands with bash (as patchloop's are) instead of
 * /bin/sh, which is dash on Debian. The load average is printed with every case: on a small
 * shared machine the ratios move with it.
 */
export async function benchPeer(): Promise<Record<string, unknown>> {
  const miniDir = flag("--mini-dir") ?? process.env.PATCHLOOP_MINI_DIR;
  if (!miniDir || !existsSync(join(miniDir, "src", "minisweagent", "__init__.py")))
    throw new Error(HOW_TO_GET_MINI);
  if (!existsSync(PYTHON))
    throw new Error(`bench peer: no ${PYTHON} (PATCHLOOP_PEER_PYTHON)\n${HOW_TO_GET_MINI}`);
  const miniSrc = join(miniDir, "src");
  const runs = Number(flag("--peer-runs") ?? 1);
  /** `--peer-case TEXT`: only the cases whose name holds TEXT. */
  const only = flag("--peer-case");
  const wanted = (name: string) => !only || name.includes(only);
  const dir = mkdtempSync(join(tmpdir(), "patchloop-bench-peer-"));
  /** `--mini-shell PATH`: mini's commands run with PATH (e.g. /bin/bash) instead of /bin/sh. */
  const miniShell = flag("--mini-shell");
  const miniEnv = {
    ...process.env,
    ...(miniShell ? { PATCHLOOP_PEER_MINI_SHELL: miniShell } : {}),
    MSWEA_SILENT_STARTUP: "1",
    MSWEA_GLOBAL_CONFIG_DIR: join(dir, "mini-config"),
    MSWEA_COST_TRACKING: "ignore_errors",
  };
  const results: Record<string, unknown> = { load_at_start: load(), mini_shell: miniShell ?? "/bin/sh" };
  try {
    const obs = observationFile(9_900);
    const repo = join(dir, "repo");
    makeBenchRepo(repo, { "obs.txt": obs });
    const single = async (name: string, command: string, steps: number) => {
      if (!wanted(name)) return;
      const server = await startPeerServer(command);
      try {
        for (let r = 0; r < runs; r++) {
          const task = "peer-task-1: run the command";
          const mini = await measure(
            server,
            PYTHON,
            [
              DRIVER,
              miniSrc,
              "single",
              `${server.url}/v1`,
              repo,
              String(steps),
              join(dir, `mini-${name}-${r}`),
              task,
            ],
            miniEnv,
          );
          const pl = await measure(
            server,
            BIN,
            [
              "run",
              "--repo",
              repo,
              "--task",
              task,
              "-o",
              join(dir, `pl-${name}-${r}`),
              "--environment",
              "local",
              "--quiet",
              "-m",
              "openai/bench",
              "--base-url",
              `${server.url}/v1`,
              "-c",
              `agent.step_limit=${steps}`,
              "-c",
              "agent.cost_limit=0",
              "-c",
              "agent.output_limit=20000",
            ],
            process.env,
          );
          for (const m of [mini, pl])
            if (m.requests !== steps)
              throw new Error(`bench peer ${name}: ${m.requests} requests, not ${steps}: ${m.stderr}`);
          results[runs > 1 ? `${name}#${r + 1}` : name] = { load: load(), ...compare(mini, pl) };
          process.stderr.write(`peer: ${name} done (load ${load()})\n`);
        }
      } finally {
        await server.close();
      }
    };
    await single("true_100", "true", 100);
    await single("output_9.9kB_100", "cat obs.txt", 100);
    await single("output_9.9kB_300", "cat obs.txt", 300);

    const instances = 32;
    const calls = 5;
    const latencyMs = 200;
    const { reposDir, rows } = fixture(join(dir, "batch"), instances);
    for (const row of rows)
      row.problem_statement = `peer-task-${row.instance_id.split("-").pop()}: add() subtracts`;
    const dataset = join(dir, "batch", "instances.json");
    writeFileSync(dataset, JSON.stringify(rows));
    const step = [
      "n=0; [ -f .git/peer_steps ] && read -r n < .git/peer_steps; n=$((n + 1)); echo $n > .git/peer_steps",
      `if [ $n -ge ${calls} ]; then echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached; else cat calc.py; fi`,
    ].join("; ");
    const server = await startPeerServer(step, latencyMs);
    try {
      for (const workers of [8, 32])
        for (let r = 0; r < runs && wanted(`batch_${instances}x${calls}_w${workers}`); r++) {
          const work = join(dir, "batch", `w${workers}-${r}`);
          mkdirSync(work, { recursive: true });
          const mini = await measure(
            server,
            PYTHON,
            [
              DRIVER,
              miniSrc,
              "batch",
              `${server.url}/v1`,
              join(reposDir, "bench__calc"),
              join(work, "mini-work"),
              join(work, "mini-out"),
              String(workers),
              String(instances),
            ],
            miniEnv,
          );
          const pl = await measure(
            server,
            BIN,
            [
              "swebench",
              "--subset",
              dataset,
              "-w",
              String(workers),
              "-o",
              join(work, "pl-out"),
              "--repos-dir",
              reposDir,
              "--environment",
              "local",
              "-m",
              "openai/bench",
              "--base-url",
              `${server.url}/v1`,
              "-c",
              "agent.cost_limit=0",
            ],
            process.env,
          );
          for (const m of [mini, pl])
            if (m.requests !== instances * calls)
              throw new Error(
                `bench peer batch: ${m.requests} requests, not ${instances * calls}: ${m.stderr}`,
              );
          const ideal = (Math.ceil(instances / workers) * calls * latencyMs) / 1000;
          const name = `batch_${instances}x${calls}_w${workers}`;
          results[runs > 1 ? `${name}#${r + 1}` : name] = {
            load: load(),
            ideal_s: ideal,
            ...compare(mini, pl, ideal),
          };
          process.stderr.write(`peer: ${name} done (load ${load()})\n`);
          rmSync(work, { recursive: true, force: true });
        }
    } finally {
      await server.close();
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
