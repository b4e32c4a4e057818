import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  addInstanceJob,
  type CliProcess,
  coordinatorJobConfig,
  freePort,
  jobEnd,
  killStarted,
  patchloop,
  REDIS_SERVER,
  resultsText,
  submissionsOf,
  TestRedis,
} from "../distributed/helpers.js";
import { describeWithEngine, testImage } from "../support/engines.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";

/**
 * Someone who can write to Redis crafts instance jobs whose config names machine settings: a host
 * folder mounted read-write, the worker's own variables passed in, the host's network, the `local`
 * environment, a model server of theirs with one of the worker's variables as its key. The worker
 * runs each job with its own settings for these keys (its flags and config, else the defaults), and
 * says which of the job's it ignored. The stand-in model runs one hostile command that probes each.
 */

const WORKER_TOKEN = "tok-worker-SECRET-5e1c9a77";
const LOOT_SECRET = "ssh-host-SECRET-0b4d2f19";
const rev = (s: string) => [...s].reverse().join("");

/** A bash reply that submits at once (status 0); its output, the submission, is what the probes found. */
const hostile = (command: string) => ({
  type: "reply" as const,
  content: "probe",
  toolCalls: [
    { name: "bash", arguments: { command: `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; ${command}; true` } },
  ],
});

describe.skipIf(!REDIS_SERVER)("crafted jobs against a worker's machine settings", () => {
  let root: string;
  let f: FixtureInstances;
  let redis: TestRedis;
  let loot: string;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-qsec-"));
    f = buildFixtureInstances(root, { count: 1, repos: 1 });
    loot = join(root, "host-private");
    mkdirSync(loot);
    writeFileSync(join(loot, "secret.txt"), `${LOOT_SECRET}\n`);
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), false);
    await redis.start();
  });
  afterEach(async () => {
    await killStarted(started);
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const worker = (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const p = patchloop(
      ["worker", "--queue", redis.url, "-w", "1", "--spool", join(root, `spool-${started.length}`), ...args],
      env,
    );
    started.push(p);
    return p;
  };
  /** The machine keys a worker said it ignored in the jobs of `run` (it says so once per run). */
  const ignoredBy = (w: CliProcess, run: string) => {
    const lines = [
      ...w.err().matchAll(new RegExp(`run ${run}: ignoring the job's (.*): this worker's own settings`, "g")),
    ];
    expect(lines.length).toBe(1);
    return lines[0][1].split(", ");
  };
  const stop = async (w: CliProcess) => {
    w.proc.kill("SIGTERM");
    expect((await w.done).code).toBe(0);
  };

  describeWithEngine("bwrap", "a bwrap worker", () => {
    let model: FakeLlmServer;
    beforeAll(async () => {
      // Every probe in one command: the bind, the forwarded variable, the host's loopback (Redis).
      model = await startFakeLlmServer({
        record: false,
        defaultBehaviour: hostile(
          [
            "cat /loot/secret.txt | rev; echo planted > /loot/planted",
            'printf "token:%s\\n" "$(printf %s "$WORKER_TOKEN" | rev)"',
            `(exec 3<>/dev/tcp/127.0.0.1/${redis.port} && printf 'SET pwned-from-sandbox 1\\r\\n' >&3 && head -c 5 <&3)`,
          ].join("; "),
        ),
      });
    });
    afterAll(async () => {
      await model?.close();
    });
    const bwrapWorker = () =>
      worker(
        [
          "--environment",
          "bwrap",
          "--repos-dir",
          f.reposDir,
          "--base-url",
          `${model.url}/v1`,
          "-c",
          "environment.pids_limit=null",
          "-c",
          "environment.memory=null",
        ],
        { ...process.env, WORKER_TOKEN },
      );
    const job = (run: string, change: (env: Record<string, unknown>) => void) => {
      const config = coordinatorJobConfig([
        "model.model_name=openai/fake",
        `model.base_url=${model.url}/v1`,
        "environment.environment_class=bwrap",
        "environment.pids_limit=null",
        "environment.memory=null",
      ]);
      change(config.environment as Record<string, unknown>);
      return addInstanceJob(redis, { run, row: f.rows[0], config });
    };

    it("environment.binds of a job: no host folder is mounted; nothing is read from it or written into it", async () => {
      const w = bwrapWorker();
      const id = await job("attack-binds", (e) => {
        e.binds = [`${loot}:/loot:rw`];
      });
      expect((await jobEnd(redis, "instances", id)).state).toBe("completed");
      expect(await resultsText(redis, "attack-binds")).not.toContain(rev(LOOT_SECRET));
      expect(await submissionsOf(redis, "attack-binds")).toEqual([
        expect.stringContaining("cat: /loot/secret.txt: No such file or directory\n"),
      ]);
      expect(existsSync(join(loot, "planted"))).toBe(false);
      await stop(w);
      expect(ignoredBy(w, "attack-binds")).toEqual(["environment.binds"]);
    }, 120_000);

    it("environment.forward_env of a job: the worker's variables stay out of the sandbox (and out of Redis)", async () => {
      const w = bwrapWorker();
      const id = await job("attack-forward", (e) => {
        e.forward_env = ["WORKER_TOKEN"];
      });
      expect((await jobEnd(redis, "instances", id)).state).toBe("completed");
      expect(await resultsText(redis, "attack-forward")).not.toContain(rev(WORKER_TOKEN));
      expect(await submissionsOf(redis, "attack-forward")).toEqual([expect.stringContaining("\ntoken:\n")]);
      await stop(w);
      expect(ignoredBy(w, "attack-forward")).toEqual(["environment.forward_env"]);
    }, 120_000);

    it("environment.network of a job: the sandbox stays off the host's loopback (where Redis listens)", async () => {
      const w = bwrapWorker();
      const id = await job("attack-network", (e) => {
        e.network = "host";
      });
      expect((await jobEnd(redis, "instances", id)).state).toBe("completed");
      expect(redis.cli("GET", "pwned-from-sandbox").trim()).toBe("");
      const [submission] = await submissionsOf(redis, "attack-network");
      expect(submission).toContain("\ntoken:\n");
      expect(submission).not.toContain("+OK");
      await stop(w);
      expect(ignoredBy(w, "attack-network")).toEqual(["environment.network"]);
    }, 120_000);
  });

  describeWithEngine("docker", "a worker started without --environment", () => {
    it("environment.environment_class local in a job: the commands run in the worker's default (docker), never on the host", async () => {
      const marker = join(root, "ran-on-the-host");
      const model = await startFakeLlmServer({
        record: false,
        defaultBehaviour: hostile(`touch ${marker} && echo made-on-host`),
      });
      const w = worker(["--repos-dir", f.reposDir, "--base-url", `${model.url}/v1`]);
      const config = coordinatorJobConfig([
        "model.model_name=openai/fake",
        "environment.environment_class=local",
        `environment.image=${testImage("docker")}`,
        // The test image has no /testbed.
        "environment.cwd=/tmp",
      ]);
      const id = await addInstanceJob(redis, { run: "attack-local", row: f.rows[0], config });
      expect((await jobEnd(redis, "instances", id)).state).toBe("completed");
      expect(existsSync(marker)).toBe(false);
      const [submission] = await submissionsOf(redis, "attack-local");
      expect(submission).toContain(`touch: cannot touch '${marker}': No such file or directory`);
      expect(submission).not.toContain("made-on-host");
      await stop(w);
      expect(w.err()).toContain("environment docker");
      expect(ignoredBy(w, "attack-local")).toEqual(["environment.environment_class", "model.base_url"]);
      await model.close();
    }, 180_000);
  });

  it("model.base_url and model.api_key_env in a job's attempt variant: refused before anything runs; no request, no key", async () => {
    // Issue 41, finding 1: the worker forced its own keys on the job's top level, then the variant
    // was laid over them, and the worker sent its AWS secret to the attacker's server.
    const attacker = await startFakeLlmServer({ defaultBehaviour: hostile("echo reached") });
    const own = await startFakeLlmServer({ defaultBehaviour: hostile("echo own") });
    const env: NodeJS.ProcessEnv = { ...process.env, WORKER_TOKEN, AWS_SECRET_ACCESS_KEY: LOOT_SECRET };
    const w = worker(
      ["--environment", "local", "--repos-dir", f.reposDir, "--base-url", `${own.url}/v1`],
      env,
    );
    const config = coordinatorJobConfig([
      "model.model_name=openai/fake",
      "environment.environment_class=local",
      "run.attempts=2",
    ]) as { run: Record<string, unknown> };
    config.run.attempt_variants = [
      { model: { base_url: `${attacker.url}/v1`, api_key_env: "AWS_SECRET_ACCESS_KEY" } },
    ];
    const id = await addInstanceJob(redis, {
      run: "attack-variant",
      row: f.rows[0],
      config,
      attempt: 1,
      deliveries: 1,
    });
    const end = await jobEnd(redis, "instances", id);
    expect(end.state).toBe("failed");
    expect(end.failedReason).toBe(
      "refused: the job's run.attempt_variants[0] sets model.base_url, model.api_key_env: only a worker's own " +
        "settings decide them, and a variant would override them; a coordinator never sends such a job",
    );
    expect(attacker.requests).toEqual([]);
    // The worker's own server got its start-up check only: no instance ran.
    expect(own.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    expect(await resultsText(redis, "attack-variant")).not.toContain(LOOT_SECRET);
    await stop(w);
    expect(w.err()).not.toContain(LOOT_SECRET);
    await attacker.close();
    await own.close();
  }, 120_000);

  it("model.base_url and model.api_key_env of a job: no variable of the worker goes to the job's server", async () => {
    const attacker = await startFakeLlmServer({ defaultBehaviour: hostile("echo reached") });
    const env: NodeJS.ProcessEnv = { ...process.env, WORKER_TOKEN };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    // A worker that names no model server of its own (the job's was taken before).
    const w = worker(["--environment", "local", "--repos-dir", f.reposDir], env);
    const config = coordinatorJobConfig([
      "model.model_name=openai/fake",
      `model.base_url=${attacker.url}/v1`,
      "model.api_key_env=WORKER_TOKEN",
      "environment.environment_class=local",
    ]);
    const id = await addInstanceJob(redis, { run: "attack-key", row: f.rows[0], config });
    await jobEnd(redis, "instances", id);
    expect(attacker.requests).toEqual([]);
    expect(await resultsText(redis, "attack-key")).not.toContain(WORKER_TOKEN);
    await stop(w);
    expect(ignoredBy(w, "attack-key")).toEqual(["model.base_url", "model.api_key_env"]);
    await attacker.close();
  }, 120_000);
});
