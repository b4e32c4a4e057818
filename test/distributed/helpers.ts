import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll } from "vitest";
import { unitKey } from "../../src/batch/types.js";
import { loadConfig } from "../../src/config/load.js";
import { redactSecrets } from "../../src/config/redact.js";
import { INSTANCE_QUEUE, instanceJobId, PREFIX, resultsQueueName } from "../../src/distributed/keys.js";
import {
  type FakeLlmServer,
  type FakeLlmServerOptions,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";
import { VERSION } from "../../src/version.js";
import { type CliProcess, startPatchloop } from "../support/cli.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";
import { waitUntil } from "../support/wait-for.js";

/** Debian's redis-server (`.ci/run` installs it), or null when this machine has none. */
export const REDIS_SERVER =
  ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p)) ?? null;

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A redis-server of a test: 127.0.0.1, its own port and folder, AOF on (fsync always) when asked. */
export class TestRedis {
  proc: ChildProcess | null = null;
  constructor(
    readonly dir: string,
    readonly port: number,
    readonly aof: boolean,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  async start(): Promise<void> {
    const args = [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--dir",
      this.dir,
      "--save",
      "",
      "--appendonly",
      this.aof ? "yes" : "no",
      "--appendfsync",
      "always",
      "--daemonize",
      "no",
      "--loglevel",
      "warning",
    ];
    this.proc = spawn(REDIS_SERVER as string, args, { stdio: "ignore" });
    const answers = () => {
      try {
        return this.cli("PING").trim() === "PONG";
      } catch {
        return false; // not up yet
      }
    };
    await waitUntil(`redis-server on port ${this.port} answers PING`, answers, { ms: 10_000 });
  }

  /** Runs redis-cli against it (REDIS_SERVER's folder has redis-cli). */
  cli(...args: string[]): string {
    const cli = join(REDIS_SERVER as string, "..", "redis-cli");
    return execFileSync(cli, ["-p", String(this.port), ...args], {
      encoding: "utf8",
      timeout: 5000,
      stdio: ["ignore", "pipe", "ignore"],
    });
  }

  /** Stops it (SIGTERM: AOF flushed) and waits until it is gone. */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const gone = new Promise((r) => p.once("exit", r));
    p.kill("SIGCONT");
    p.kill("SIGTERM");
    await gone;
  }

  /** Freezes it (SIGSTOP): its connections stay open and nothing is answered until `thaw`. */
  freeze(): void {
    this.proc?.kill("SIGSTOP");
  }

  thaw(): void {
    this.proc?.kill("SIGCONT");
  }
}

export type { CliProcess };

/** Starts `patchloop ARGS` from dist/ (built by the test setup). */
export function patchloop(args: string[], env: NodeJS.ProcessEnv = process.env): CliProcess {
  return startPatchloop(args, { env });
}

/** SIGKILLs the processes of `started` still running (and empties it), once they are gone. */
export async function killStarted(started: CliProcess[]): Promise<void> {
  const left = started.splice(0).filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  for (const p of left) p.proc.kill("SIGKILL");
  await Promise.all(left.map((p) => p.done));
}

/** Whether a process is still there. */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds or `ms` pass; throws naming `what` (waitUntil, with the queue tests' 90 s). */
export function until(what: string, check: () => boolean | Promise<boolean>, ms = 90_000): Promise<void> {
  return waitUntil(what, check, { ms });
}

/**
 * What anyone who can write to a test Redis sees and does, through BullMQ as patchloop does:
 * patchloop's queues by name (`instances`, `results-<run>`), under patchloop's prefix.
 */
export function queueOn(redis: TestRedis, name: string): Queue {
  const q = new Queue(name, { connection: { host: "127.0.0.1", port: redis.port }, prefix: PREFIX });
  q.on("error", () => undefined);
  return q;
}

/** The config a coordinator sends with a job (`-c` arguments over the swebench built-in, secrets masked). */
export function coordinatorJobConfig(args: string[]): Record<string, unknown> {
  const { config } = loadConfig({ configArgs: ["swebench", ...args], defaultConfig: "swebench" });
  return redactSecrets(config) as unknown as Record<string, unknown>;
}

/**
 * An instance job as a coordinator of `run` would add it (job id `<run>.<instance>`, this
 * patchloop's version: a worker does not run another version's jobs), or as crafted.
 */
export async function addInstanceJob(
  redis: TestRedis,
  data: { run: string; row: Record<string, unknown>; config: unknown; [key: string]: unknown },
): Promise<string> {
  const q = queueOn(redis, INSTANCE_QUEUE);
  const attempt = typeof data.attempt === "number" ? data.attempt : undefined;
  const jobId = instanceJobId(data.run, unitKey(String(data.row.instance_id), attempt));
  await q.add(
    "instance",
    { model_name: "openai/fake", deliveries: 1, version: VERSION, ...data },
    { jobId, attempts: 1, removeOnComplete: false, removeOnFail: false },
  );
  await q.close();
  return jobId;
}

/** Waits until a job of `name` has ended; its state and why it failed. */
export async function jobEnd(
  redis: TestRedis,
  name: string,
  jobId: string,
  ms = 90_000,
): Promise<{ state: string; failedReason: string }> {
  const q = queueOn(redis, name);
  let state = "";
  await until(
    `job ${jobId} ends`,
    async () => {
      state = await q.getJobState(jobId);
      return state === "completed" || state === "failed";
    },
    ms,
  );
  const job = await q.getJob(jobId);
  await q.close();
  return { state, failedReason: job?.failedReason ?? "" };
}

/** Everything a run's results queue holds (what workers sent it), as JSON text. */
export async function resultsText(redis: TestRedis, run: string): Promise<string> {
  const q = queueOn(redis, resultsQueueName(run));
  const jobs = await q.getJobs(["waiting", "active", "delayed", "prioritized", "completed", "failed"]);
  await q.close();
  return JSON.stringify(jobs.map((j) => j.data));
}

/** The submissions (the patch text) of the results a run's results queue holds. */
export async function submissionsOf(redis: TestRedis, run: string): Promise<string[]> {
  return (JSON.parse(await resultsText(redis, run)) as { result: { outcome: { patch: string } } }[]).map(
    (r) => r.result.outcome.patch,
  );
}

/** The run id a coordinator prints once it has enqueued (fails the test when it stopped first). */
export async function runIdOf(boss: CliProcess): Promise<string> {
  let run = "";
  await until("the coordinator names its run (or stops)", () => {
    run = /: run (\S+) \(patchloop queue status/.exec(boss.out() + boss.err())?.[1] ?? "";
    return run !== "" || boss.proc.exitCode !== null;
  });
  if (run === "") throw new Error(`the coordinator stopped before naming its run:\n${boss.err()}`);
  return run;
}

/** The instances a worker's output says it started, in order (`... start ID`). */
export function startsOf(w: CliProcess): string[] {
  return [...w.err().matchAll(/ start ([A-Za-z0-9-]+__[A-Za-z0-9._-]+?-\d+)\b/g)].map((m) => m[1]);
}

/** `patchloop queue ARGS` to its end: its exit code and output. */
export async function queueCommand(
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const p = patchloop(["queue", ...args]);
  const { code } = await p.done;
  return { code, out: p.out(), err: p.err() };
}

/**
 * What a queue test runs against, set up before its tests and torn down after them: fixture
 * instances under a temp root, a fake model server, a Redis (in `root`/redis), and the `patchloop`
 * processes the test started (`started`, killed after each test with `killAfterEach`, else at the end).
 */
export interface QueueRig {
  root: string;
  f: FixtureInstances;
  server: FakeLlmServer;
  redis: TestRedis;
  started: CliProcess[];
}

/** Registers the hooks that set up and tear down a QueueRig; its fields are there once `beforeAll` ran. */
export function useQueueRig(opts: {
  prefix: string;
  fixture: { count: number; repos: number };
  server: FakeLlmServerOptions;
  aof: boolean;
  killAfterEach?: boolean;
}): QueueRig {
  const rig = { started: [] as CliProcess[] } as QueueRig;
  beforeAll(async () => {
    rig.root = mkdtempSync(join(tmpdir(), opts.prefix));
    rig.f = buildFixtureInstances(rig.root, opts.fixture);
    rig.server = await startFakeLlmServer(opts.server);
    mkdirSync(join(rig.root, "redis"));
    rig.redis = new TestRedis(join(rig.root, "redis"), await freePort(), opts.aof);
    await rig.redis.start();
  });
  if (opts.killAfterEach) {
    // A test that failed half way leaves no worker to take the next test's jobs.
    afterEach(async () => {
      await killStarted(rig.started);
    });
  }
  afterAll(async () => {
    await killStarted(rig.started);
    await rig.redis?.stop();
    await rig.server?.close();
    if (rig.root) rmSync(rig.root, { recursive: true, force: true });
  });
  return rig;
}

/**
 * Starts `patchloop worker` with `-w 1` on the rig's Redis, local environment, the fixture clones and
 * `root`/spool, then `more` (how it reaches the model); kept in `started`.
 */
export function startRigWorker(rig: QueueRig, more: string[]): CliProcess {
  const p = patchloop([
    ...[
      "worker",
      "--queue",
      rig.redis.url,
      "-w",
      "1",
      "--environment",
      "local",
      "--repos-dir",
      rig.f.reposDir,
    ],
    ...["--spool", join(rig.root, "spool"), ...more],
  ]);
  rig.started.push(p);
  return p;
}

/**
 * Starts the coordinator `patchloop swebench` of `subset` (the fixture dataset unless named) with the
 * fake model (`model`: `--base-url` unless named), local environment, `-o out`, on the rig's Redis,
 * then `more`; kept in `started`.
 */
export function startRigCoordinator(
  rig: QueueRig,
  out: string,
  more: string[],
  model = ["--base-url", `${rig.server.url}/v1`],
  subset = rig.f.datasetPath,
): CliProcess {
  const p = patchloop([
    ...["swebench", "--subset", subset, "-m", "openai/fake", ...model],
    ...["--environment", "local", "-o", out, "--queue", rig.redis.url, ...more],
  ]);
  rig.started.push(p);
  return p;
}
