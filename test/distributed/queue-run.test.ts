import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { GONE_MS } from "../../src/distributed/workers.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  buildFixtureInstances,
  type FixtureInstances,
  STEPWISE_CALLS,
  stepwiseReply,
} from "../support/fixture-instances.js";
import {
  alive,
  type CliProcess,
  freePort,
  patchloop,
  REDIS_SERVER,
  runIdOf,
  TestRedis,
  until,
} from "./helpers.js";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

function predIds(out: string): string[] {
  try {
    return Object.keys(readJson<object>(join(out, "preds.json")));
  } catch {
    return [];
  }
}

describe.skipIf(!REDIS_SERVER)(
  "distributed runs: a coordinator and patchloop worker processes on one Redis",
  () => {
    let root: string;
    let f: FixtureInstances;
    let a: FakeLlmServer;
    let b: FakeLlmServer;
    let redis: TestRedis;
    const started: CliProcess[] = [];

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "patchloop-dist-"));
      f = buildFixtureInstances(root, { count: 30, repos: 3 });
      a = await startFakeLlmServer({ defaultBehaviour: stepwiseReply(400), record: false });
      b = await startFakeLlmServer({ defaultBehaviour: stepwiseReply(400), record: false });
      mkdirSync(join(root, "redis"));
      redis = new TestRedis(join(root, "redis"), await freePort(), true);
      await redis.start();
    });
    afterAll(async () => {
      for (const p of started) if (p.proc.exitCode === null) p.proc.kill("SIGKILL");
      await redis?.stop();
      await a?.close().catch(() => undefined);
      await b?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const worker = (n: number) => {
      const p = patchloop([
        "worker",
        "--queue",
        redis.url,
        "-w",
        "3",
        "--environment",
        "local",
        "--repos-dir",
        f.reposDir,
        "--spool",
        join(root, `spool-${n}`),
        "-c",
        "run.queue.lock_seconds=3",
        "-c",
        "run.queue.stalled_check_seconds=1",
        "-c",
        "run.queue.grace_seconds=10",
        // The model servers are each worker's own setting (a job's model.base_url is never used).
        "-c",
        `model.base_url=[${a.url}/v1, ${b.url}/v1]`,
        "-c",
        "model.replica_cooldown=120",
      ]);
      started.push(p);
      return p;
    };
    const coordinator = (out: string) => {
      const p = patchloop([
        "swebench",
        "--subset",
        f.datasetPath,
        "-m",
        "openai/fake",
        "-c",
        `model.base_url=[${a.url}/v1, ${b.url}/v1]`,
        "-c",
        "model.replica_cooldown=120",
        "--environment",
        "local",
        "-o",
        out,
        "--queue",
        redis.url,
      ]);
      started.push(p);
      return p;
    };

    it("SIGKILL of a worker mid-job, a coordinator restart, a Redis restart and a replica gone: every instance once, nothing left", async () => {
      const out = join(root, "run");
      const workers = [worker(1), worker(2), worker(3)];
      let boss = coordinator(out);

      // A worker killed in the middle of an instance: its job stalls and runs again on another worker.
      const victim = workers[0];
      const count = (w: CliProcess, what: RegExp) => w.err().match(what)?.length ?? 0;
      await until(
        "three results are in and the first worker is in the middle of an instance",
        () => predIds(out).length >= 3 && count(victim, / start acme__/g) > count(victim, / end acme__/g),
      );
      victim.proc.kill("SIGKILL");
      expect((await victim.done).signal).toBe("SIGKILL");
      const running = [...victim.err().matchAll(/start (acme__lib\d-\d+)/g)].map((m) => m[1]);
      const endedThere = [...victim.err().matchAll(/end (acme__lib\d-\d+)/g)].map((m) => m[1]);
      // Started on the killed worker and not reported done there (one may have been sent just before).
      const cutOff = running.filter((id) => !endedThere.includes(id));
      expect(cutOff.length).toBeGreaterThan(0);

      // The coordinator killed and started again with the same command: it resumes folder and queue.
      await until("eight results are in", () => predIds(out).length >= 8);
      boss.proc.kill("SIGKILL");
      await boss.done;
      boss = coordinator(out);

      /** Instances the workers finished (their results may still be on the way). */
      const ends = () => workers.reduce((n, w) => n + (w.err().match(/ end acme__/g)?.length ?? 0), 0);
      // Redis restarted (AOF): the work goes on.
      await until("the workers finished twelve instances", () => ends() >= 12, 120_000);
      // The restarted coordinator is connected (a node start takes seconds on a busy machine): it sees the restart.
      await runIdOf(boss);
      const silences = () => boss.err().split("does not answer").length - 1;
      const before = silences();
      await redis.stop();
      await until("the coordinator saw the queue stop answering", () => silences() > before);
      await redis.start();

      // One replica of the model goes away: the rest of the run goes to the other.
      await until("the workers finished sixteen instances", () => ends() >= 16, 120_000);
      await a.close();

      const ended = await boss.done;
      expect([ended.code, boss.err().slice(-2000)]).toEqual([0, expect.any(String)]);
      expect(boss.err()).toContain("does not answer");
      expect(boss.err()).toContain("answers again");

      // Every instance exactly once in preds.json, each with the fixture's fix, each trajectory valid.
      const preds = readJson<Record<string, { instance_id: string; model_patch: string }>>(
        join(out, "preds.json"),
      );
      expect(Object.keys(preds).sort()).toEqual(f.rows.map((r) => r.instance_id).sort());
      for (const row of f.rows) {
        expect(preds[row.instance_id].model_patch).toBe(row.patch);
        const t = readJson<Trajectory & { info: { worker?: { pid: number; host: string } } }>(
          join(out, row.instance_id, `${row.instance_id}.traj.json`),
        );
        expect([row.instance_id, t.info.exit_status, t.info.model_stats.api_calls]).toEqual([
          row.instance_id,
          "Submitted",
          STEPWISE_CALLS,
        ]);
        expect(t.info.worker?.pid).toEqual(expect.any(Number));
      }
      // The killed worker's jobs stalled and ran again on the others.
      const workerOf = (id: string) =>
        readJson<Trajectory & { info: { worker?: { pid: number } } }>(join(out, id, `${id}.traj.json`)).info
          .worker?.pid;
      expect(cutOff.filter((id) => workerOf(id) !== victim.proc.pid).length).toBeGreaterThan(0);
      const run = readJson<{
        state: string;
        instances: Record<string, { exit_status: string; worker?: string; delivery?: string }>;
        replicas: Record<string, { requests: number; failures: number }>;
      }>(join(out, "run.json"));
      expect(run.state).toBe("finished");
      // The restarted coordinator found the jobs the first had enqueued and did not enqueue them again.
      expect(readFileSync(join(out, "run.log"), "utf8")).toMatch(
        /queue: \d+ instance\(s\) of run \S+ were in the queue already \(kept\)/,
      );
      expect(Object.values(run.instances).map((i) => i.exit_status)).toEqual(Array(30).fill("Submitted"));
      // (An instance whose result the killed coordinator wrote but did not record in run.json is
      // restored from its trajectory, which names its worker.)
      expect(Object.values(run.instances).filter((i) => typeof i.worker === "string").length).toBeGreaterThan(
        20,
      );
      expect(readFileSync(join(out, "exit_statuses.yaml"), "utf8")).toBe(
        `Submitted:\n${f.rows
          .map((r) => `  - ${r.instance_id}\n`)
          .sort()
          .join("")}`,
      );
      // Both replicas served; the one that went away failed at least once, then was left alone.
      expect(run.replicas[`${a.url}/v1`].requests).toBeGreaterThan(0);
      expect(run.replicas[`${a.url}/v1`].failures).toBeGreaterThan(0);
      expect(run.replicas[`${b.url}/v1`].requests).toBeGreaterThan(run.replicas[`${a.url}/v1`].requests);

      // No job is left in the queue. The killed worker is listed until its last heartbeat is older
      // than GONE_MS (src/distributed/workers.ts), which a fast run can finish within.
      const queueStatus = async () => {
        const status = patchloop(["queue", "status", "--queue", redis.url]);
        expect((await status.done).code).toBe(0);
        return status.out();
      };
      const afterRun = await queueStatus();
      // (On a miss, the run's log says what the coordinator's last sweep saw.)
      expect([
        afterRun,
        afterRun.includes("runs: none") ? "" : readFileSync(join(out, "run.log"), "utf8").slice(-3000),
      ]).toEqual([expect.stringContaining("runs: none"), ""]);
      await until(
        "the killed worker's heartbeat is gone",
        async () => (await queueStatus()).includes("workers: 2"),
        GONE_MS + 10_000,
      );
      expect(redis.cli("--scan", "--pattern", "patchloop:instances:*:*").trim()).toBe("");

      // The workers stop on SIGTERM; no process is left.
      for (const w of workers.slice(1)) w.proc.kill("SIGTERM");
      for (const w of workers.slice(1)) expect((await w.done).code).toBe(0);
      for (const p of started) expect(alive(p.proc.pid)).toBe(false);
      const left = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes(root) && !l.includes("redis-server"));
      expect(left).toEqual([]);
    }, 300_000);
  },
);
