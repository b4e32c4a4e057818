import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openInstanceEnvironment } from "../../src/batch/instance-environment.js";
import { endLine } from "../../src/batch/progress-display.js";
import { runBatch } from "../../src/batch/run-batch.js";
import { summaryTable } from "../../src/batch/summary-table.js";
import type { EnvironmentOpener } from "../../src/batch/types.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { buildReport } from "../../src/report/build.js";
import { collectRun } from "../../src/report/collect.js";
import { renderReport } from "../../src/report/render.js";
import { runTask } from "../../src/task/run-task.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import {
  buildFixtureInstances,
  FIX_COMMAND,
  type FixtureInstances,
  SUBMIT_COMMAND,
} from "../support/fixture-instances.js";
import { git } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { bash, localSwebenchConfig, readJson, trajectory } from "./helpers.js";

const RETRY = ["run.infra_retry.retries=2", "run.infra_retry.delay=0"];
const solve = () => new ScriptedModel([bash(FIX_COMMAND, 0.02), bash(SUBMIT_COMMAND, 0.02)]);
type Rec = Record<string, unknown>;
const runJson = (out: string) => readJson<{ instances: Record<string, Rec> }>(join(out, "run.json"));

describe("run.infra_retry: infrastructure failures before the model's first reply", () => {
  let f: FixtureInstances;
  let side: string;
  let sideCommit: string;
  beforeAll(() => {
    f = buildFixtureInstances(mkdtempSync(join(tmpdir(), "patchloop-infra-fixture-")), {
      count: 2,
      repos: 1,
    });
    // A commit the clone does not have (yet): made in a copy of it.
    side = join(f.reposDir, "..", "side");
    git(f.reposDir, "clone", "-q", join(f.reposDir, "acme__lib0"), side);
    git(side, "checkout", "-q", "--detach", f.rows[0].base_commit);
    git(
      side,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.invalid",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    );
    sideCommit = git(side, "rev-parse", "HEAD").trim();
  });
  afterAll(() => rmSync(join(f.reposDir, ".."), { recursive: true, force: true }));

  it("a clone that lacks the base commit the first time is retried in a fresh environment and Submitted", async () => {
    const out = join(tempDir(), "run");
    const row: SwebenchInstance = { ...f.rows[0], base_commit: sideCommit };
    let opens = 0;
    // The real opener; after its first failure the missing commit is fetched into the clone.
    const openEnvironment: EnvironmentOpener = async (r, _signal, config) => {
      opens++;
      try {
        return await openInstanceEnvironment(config, r, { reposDir: f.reposDir });
      } catch (err) {
        git(join(f.reposDir, "acme__lib0"), "fetch", "-q", side, sideCommit);
        throw err;
      }
    };
    const result = await runBatch({
      config: localSwebenchConfig(RETRY),
      instances: [row],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: () => solve(),
      openEnvironment,
    });
    expect(opens).toBe(2);
    expect(result.statuses).toEqual({ "acme__lib0-1": "Submitted" });
    const o = result.outcomes[0];
    expect([o.infra_retries, o.infrastructure]).toEqual([1, undefined]);
    const rec = runJson(out).instances["acme__lib0-1"];
    expect([rec.exit_status, rec.infra_retries, rec.infrastructure]).toEqual(["Submitted", 1, undefined]);
    expect(trajectory(out, "acme__lib0-1").info.infra_retries).toBe(1);
    const log = readFileSync(join(out, "run.log"), "utf8");
    expect(log).toMatch(
      /acme__lib0-1: infrastructure failure before the model's first reply \(EnvironmentError: could not open the environment: cannot check out base commit [0-9a-f]{40} .*\); running it again in a fresh environment in 0s \(retry 1 of 2, run.infra_retry\)/,
    );
    expect(endLine(o, 1, 1)).toMatch(
      /^\[1\/1\] acme__lib0-1 Submitted \(2 calls, \$0\.04, \d+s\) after 1 infrastructure retry$/,
    );
  });

  it("every run failing is recorded as an infrastructure failure, and report shows it apart from model failures", async () => {
    const out = join(tempDir(), "run");
    const broken = { ...f.rows[0], base_commit: "0123456789abcdef0123456789abcdef01234567" };
    let models = 0;
    const result = await runBatch({
      config: localSwebenchConfig(RETRY),
      instances: [broken, f.rows[1]],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: (r) => {
        models++;
        // instance 2: the server refuses, fatally (a 400): the model's side, never retried
        return r.instance_id.endsWith("-2")
          ? new ScriptedModel([{ error: "fatal", message: "HTTP 400" }])
          : solve();
      },
    });
    expect(models).toBe(1);
    expect(result.statuses).toEqual({ "acme__lib0-1": "EnvironmentError", "acme__lib0-2": "ModelError" });
    const recs = runJson(out).instances;
    expect([recs["acme__lib0-1"].infra_retries, recs["acme__lib0-1"].infrastructure]).toEqual([2, true]);
    expect([recs["acme__lib0-2"].infra_retries, recs["acme__lib0-2"].infrastructure]).toEqual([
      undefined,
      undefined,
    ]);
    const info = trajectory(out, "acme__lib0-1").info;
    expect([info.exit_status, info.infra_retries, info.infrastructure]).toEqual([
      "EnvironmentError",
      2,
      true,
    ]);
    // the summary's table counts it apart from the model's failures
    expect(summaryTable(result, out).split("\n").slice(0, 6)).toEqual([
      "exit status             this run  earlier  total",
      "----------------------  --------  -------  -----",
      "ModelError                     1        0      1",
      "infrastructure failure         1        0      1",
      "total                          2        0      2",
      "infrastructure failure: the environment or the model server failed before the model's first reply, on every try (run.infra_retry); not the model's failure. exit_statuses.yaml lists them under their exit status; run.json marks them `infrastructure: true`.",
    ]);
    const o = result.outcomes.find((x) => x.instance_id === "acme__lib0-1");
    expect(o && endLine(o, 1, 2)).toMatch(
      /^\[1\/2\] acme__lib0-1 EnvironmentError \(0 calls, \$0\.00, \d+s\): could not open the environment: cannot check out base commit 0123456789abcdef.* \(infrastructure failure, 3 tries\)$/,
    );

    const report = buildReport(await collectRun(out, null));
    expect(report.outcomes.map((c) => [c.category, c.group, c.count, c.ids])).toEqual([
      ["model_error", "not submitted", 1, ["acme__lib0-2"]],
      ["run_infrastructure", "not submitted", 1, ["acme__lib0-1"]],
    ]);
    const markdown = renderReport(report).split("\n");
    expect(markdown.filter((l) => /^\| not submitted \|/.test(l))).toEqual([
      "| not submitted | model error | 1 | the server failed or refused; the batch runs it again when it was an outage |",
      "| not submitted | infrastructure failure before the model's first reply (not the model's) | 1 | the environment or model server failed on every run (run.infra_retry); fix it and run the same command again |",
    ]);
  });

  it("with attempts, each attempt is retried on its own and the instance's line says infrastructure", async () => {
    const out = join(tempDir(), "run");
    const broken = { ...f.rows[0], base_commit: "0123456789abcdef0123456789abcdef01234567" };
    const result = await runBatch({
      config: localSwebenchConfig(["run.infra_retry.retries=1", "run.infra_retry.delay=0", "run.attempts=2"]),
      instances: [broken],
      outputDir: out,
      reposDir: f.reposDir,
      modelFor: () => solve(),
    });
    expect(
      result.outcomes.map((o) => [o.attempt_number, o.exit_status, o.infra_retries, o.infrastructure]),
    ).toEqual([
      [1, "EnvironmentError", 1, true],
      [2, "EnvironmentError", 1, true],
    ]);
    const run = readJson<{ instances: Record<string, Rec>; attempts: Record<string, Rec> }>(
      join(out, "run.json"),
    );
    expect(run.instances["acme__lib0-1"].infrastructure).toBe(true);
    expect(run.attempts["acme__lib0-1/attempt-2"].infra_retries).toBe(1);
    expect(summaryTable(result, out).split("\n").slice(0, 13)).toEqual([
      "instances (each once: the status of the attempt that stands for it)",
      "exit status             this run  earlier  total",
      "----------------------  --------  -------  -----",
      "infrastructure failure         1        0      1",
      "total                          1        0      1",
      "",
      "attempts (2 per instance, replacements included)",
      "exit status             this run  earlier  total",
      "----------------------  --------  -------  -----",
      "infrastructure failure         2        0      2",
      "total                          2        0      2",
      "infrastructure failure: the environment or the model server failed before the model's first reply, on every try (run.infra_retry); not the model's failure. exit_statuses.yaml lists them under their exit status; run.json marks them `infrastructure: true`.",
      "",
    ]);
    const report = buildReport(await collectRun(out, null));
    expect(report.outcomes.map((c) => c.category)).toEqual(["run_infrastructure"]);
  });

  it("waits with a doubling delay up to max_delay, through the injected sleep; an abort while waiting is Interrupted", async () => {
    const dir = tempDir();
    const waits: number[] = [];
    let opens = 0;
    const spec = (signal: AbortSignal, sleep: (ms: number) => Promise<void>) => ({
      config: localSwebenchConfig(),
      instanceId: "acme__lib0-1",
      task: "t",
      instance: {},
      model: () => solve(),
      modelName: "scripted",
      trajectoryPath: join(dir, "t.traj.json"),
      open: async () => {
        opens++;
        throw new Error(`engine not answering (${opens})`);
      },
      signal,
      infraRetry: { retries: 3, delay: 5, max_delay: 8, sleep },
    });
    const o = await runTask(
      spec(new AbortController().signal, async (ms) => {
        waits.push(ms);
      }),
    );
    expect(waits).toEqual([5000, 8000, 8000]);
    expect(opens).toBe(4);
    expect([o.exit_status, o.exit_message, o.infra_retries, o.infrastructure]).toEqual([
      "EnvironmentError",
      "could not open the environment: engine not answering (4)",
      3,
      true,
    ]);
    expect(readJson<{ info: Rec }>(join(dir, "t.traj.json")).info).toMatchObject({
      exit_status: "EnvironmentError",
      infra_retries: 3,
      infrastructure: true,
    });

    opens = 0;
    const stop = new AbortController();
    const aborted = await runTask(
      spec(stop.signal, async () => {
        stop.abort();
      }),
    );
    expect(opens).toBe(1);
    expect([aborted.exit_status, aborted.infrastructure]).toEqual(["Interrupted", undefined]);
  });

  describe("a model server that fails", () => {
    let server: FakeLlmServer;
    afterEach(async () => server?.close());
    const serverConfig = (url: string) =>
      localSwebenchConfig([
        ...RETRY,
        "model.model_name=openai/fake",
        `model.base_url=${url}/v1`,
        "model.retry.max_tries=1",
        "model.api_key_env=null",
      ]);
    const call = (command: string) => ({
      type: "reply" as const,
      content: "next step",
      toolCalls: [{ name: "bash", arguments: { command } }],
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    });

    it("closing connections before the first reply: retried, then Submitted", async () => {
      server = await startFakeLlmServer();
      server.enqueue({ type: "close" }, { type: "close" }, call(FIX_COMMAND), call(SUBMIT_COMMAND));
      const out = join(tempDir(), "run");
      const result = await runBatch({
        config: serverConfig(server.url),
        instances: [f.rows[0]],
        outputDir: out,
        reposDir: f.reposDir,
      });
      expect(server.pending()).toBe(0);
      expect(result.statuses).toEqual({ "acme__lib0-1": "Submitted" });
      expect(runJson(out).instances["acme__lib0-1"].infra_retries).toBe(2);
      expect(trajectory(out, "acme__lib0-1").info.model_stats.api_calls).toBe(2);
    });

    it("failing after the first reply: not retried, recorded as the model error it is", async () => {
      server = await startFakeLlmServer();
      server.enqueue(call("true"), { type: "close" }, call(FIX_COMMAND), call(SUBMIT_COMMAND));
      const out = join(tempDir(), "run");
      const result = await runBatch({
        config: serverConfig(server.url),
        instances: [f.rows[0]],
        outputDir: out,
        reposDir: f.reposDir,
      });
      expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(2);
      expect(server.pending()).toBe(2);
      expect(result.statuses).toEqual({ "acme__lib0-1": "ModelError" });
      const rec = runJson(out).instances["acme__lib0-1"];
      expect([rec.model_error, rec.infra_retries, rec.infrastructure]).toEqual([
        { kind: "retries_exhausted" },
        undefined,
        undefined,
      ]);
    });
  });
});
