import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  addInstanceJob,
  type CliProcess,
  coordinatorJobConfig,
  freePort,
  jobEnd,
  patchloop,
  REDIS_SERVER,
  resultsText,
  TestRedis,
} from "../distributed/helpers.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";

/**
 * A crafted job's `row.instance_id` and `row.repo` become folders on the worker: `../` in them
 * reached other folders of the host, whose files went back to Redis (the instance folder's files
 * are the result), and another git repository of the host served as the clone. The worker refuses
 * any id or repository name outside the SWE-bench forms, saying so in the job's failure.
 */

const KEY_TEXT = "host-key-SECRET-77c1d0e2";
const REPO_SECRET = "private-code-SECRET-3a9f6b10";
const rev = (s: string) => [...s].reverse().join("");

describe.skipIf(!REDIS_SERVER)("crafted ids and repository names against a worker's folders", () => {
  let root: string;
  let f: FixtureInstances;
  let redis: TestRedis;
  let model: FakeLlmServer;
  let w: CliProcess;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-qpath-"));
    f = buildFixtureInstances(root, { count: 1, repos: 1 });
    mkdirSync(join(root, "redis"));
    redis = new TestRedis(join(root, "redis"), await freePort(), false);
    await redis.start();
    model = await startFakeLlmServer({
      record: false,
      defaultBehaviour: {
        type: "reply",
        content: "probe",
        toolCalls: [
          {
            name: "bash",
            arguments: { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat secret.txt | rev" },
          },
        ],
      },
    });
    w = patchloop([
      "worker",
      "--queue",
      redis.url,
      "--environment",
      "local",
      "--repos-dir",
      f.reposDir,
      "--base-url",
      `${model.url}/v1`,
      "--spool",
      join(root, "spool"),
    ]);
  });
  afterAll(async () => {
    if (w && w.proc.exitCode === null) {
      w.proc.kill("SIGTERM");
      await w.done;
    }
    await model?.close();
    await redis?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const config = () =>
    coordinatorJobConfig(["model.model_name=openai/fake", "environment.environment_class=local"]);

  it("row.instance_id with ../: refused; the folder it names is neither read nor written", async () => {
    const keys = join(root, "home", ".ssh");
    mkdirSync(keys, { recursive: true });
    writeFileSync(join(keys, "id_ed25519"), `${KEY_TEXT}\n`);
    const id = `${"../".repeat(30)}${keys.slice(1)}`;
    const jobId = await addInstanceJob(redis, {
      run: "attack-id",
      row: { ...f.rows[0], instance_id: id },
      config: config(),
    });
    const end = await jobEnd(redis, "instances", jobId);
    expect(await resultsText(redis, "attack-id")).not.toContain(KEY_TEXT);
    expect(readdirSync(keys)).toEqual(["id_ed25519"]);
    expect(existsSync(`${keys}.traj.json`)).toBe(false);
    expect(end.state).toBe("failed");
    expect(end.failedReason).toBe(
      `refused: the job's row.instance_id ${JSON.stringify(id).slice(0, 80)}... is not a SWE-bench instance id ` +
        "(owner__name-NUMBER, e.g. django__django-11099, or a SWE-bench Pro id instance_owner__name-<commit>: letters, digits, - _ and . only); " +
        "the worker makes folders from it",
    );
  }, 120_000);

  it("row.repo with ../: refused; another repository of the host is not checked out", async () => {
    // A private repository beside --repos-dir, which `x/../../../private-code` reached.
    const other = join(dirname(f.reposDir), "private-code");
    mkdirSync(other);
    writeFileSync(join(other, "secret.txt"), `${REPO_SECRET}\n`);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=x", "-c", "user.email=x@example.invalid", ...args], {
        cwd: other,
      });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "-m", "private");
    const repo = "x/../../../private-code";
    const jobId = await addInstanceJob(redis, {
      run: "attack-repo",
      row: { ...f.rows[0], repo, instance_id: "x__private-code-1", base_commit: "HEAD" },
      config: config(),
    });
    const end = await jobEnd(redis, "instances", jobId);
    expect(await resultsText(redis, "attack-repo")).not.toContain(rev(REPO_SECRET));
    expect(end.state).toBe("failed");
    expect(end.failedReason).toBe(
      `refused: the job's row.repo "${repo}" is not a repository name ` +
        "(owner/name, e.g. django/django: letters, digits, - _ and . only); the worker makes folders from it",
    );
  }, 120_000);
  it("model names that open worker files (gguf:, replay:, also in a variant): refused without opening them; the worker goes on", async () => {
    // Issue 41, finding 3: a pipe froze the worker, /dev/zero got it killed, and the first bytes
    // of /proc/self/environ came back in an error message.
    const fifo = join(root, "a-pipe");
    execFileSync("mkfifo", [fifo]);
    const cases: { run: string; name: string; kind: string; where: string; variant?: boolean }[] = [
      { run: "attack-gguf-fifo", name: `gguf:${fifo}`, kind: "a GGUF model file", where: "model.model_name" },
      {
        run: "attack-gguf-zero",
        name: "gguf:/dev/zero",
        kind: "a GGUF model file",
        where: "model.model_name",
      },
      {
        run: "attack-replay-environ",
        name: "replay:/proc/self/environ",
        kind: "a trajectory file to replay",
        where: "model.model_name",
      },
      {
        run: "attack-variant-gguf",
        name: "gguf:/proc/self/environ",
        kind: "a GGUF model file",
        where: "run.attempt_variants[0].model.model_name",
        variant: true,
      },
    ];
    for (const c of cases) {
      const data = config() as { model: Record<string, unknown>; run: Record<string, unknown> };
      if (c.variant) {
        data.run.attempt_variants = [{ model: { model_name: c.name } }];
        data.run.attempts = 2;
      } else data.model.model_name = c.name;
      const jobId = await addInstanceJob(redis, {
        run: c.run,
        row: f.rows[0],
        config: data,
        ...(c.variant ? { attempt: 1 } : {}),
      });
      const end = await jobEnd(redis, "instances", jobId);
      expect(end.state).toBe("failed");
      expect(end.failedReason).toBe(
        `refused: the job's ${c.where} names ${c.kind} (${JSON.stringify(c.name)}), and a worker opens no file a job names; ` +
          "run a GGUF model or a replay with patchloop swebench without --queue, or serve the model over HTTP for the workers",
      );
    }
    // The worker is alive and takes the next job.
    const ok = await addInstanceJob(redis, { run: "after-the-attacks", row: f.rows[0], config: config() });
    expect((await jobEnd(redis, "instances", ok)).state).toBe("completed");
    expect(w.proc.exitCode).toBe(null);
  }, 180_000);
});
