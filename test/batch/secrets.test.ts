import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TrajectoryRecorder } from "../../src/agent/trajectory.js";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { runBatch } from "../../src/batch/run-batch.js";
import { RunRecord } from "../../src/batch/run-record.js";
import { redactSecrets } from "../../src/config/redact.js";
import type { Config } from "../../src/config/schema.js";
import { ScriptedModel } from "../../src/models/scripted.js";
import { RunLog } from "../../src/run-folder/run-log.js";
import { startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { buildFixtureInstances, FIX_COMMAND, SUBMIT_COMMAND } from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { bash, localBatchArgs, localSwebenchConfig, readJson, trajectory } from "./helpers.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const API_KEY = "sk-test-SECRET123456";
const BEARER = "tok-SECRET987654";
const URL_PW = "pw12345678";
const HEADERS_ARG = `model.model_kwargs.extra_headers={"Authorization":"Bearer ${BEARER}"}`;

/** A config holding an API key, a Bearer header and a base URL with a password. */
function secretConfig(baseUrl = `http://user:${URL_PW}@127.0.0.1:9/v1`) {
  return localSwebenchConfig([
    `model.model_kwargs.api_key=${API_KEY}`,
    HEADERS_ARG,
    `model.base_url=${baseUrl}`,
  ]);
}

/** A trajectory recorder for `path` whose info holds the redacted `config` and which scrubs with its secrets. */
function recorder(path: string, config: Config): TrajectoryRecorder {
  return new TrajectoryRecorder(
    path,
    {
      config: redactSecrets(config),
      versions: {},
      timing: { started_at: new Date().toISOString(), ended_at: null, wall_seconds: 0 },
    },
    { config },
  );
}

describe("files written with the config's secrets masked", () => {
  it("a trajectory file has *** where the config's secrets and URL credentials were; memory and the submission are unchanged", async () => {
    const config = secretConfig();
    const path = join(tempDir(), "t.traj.json");
    const rec = recorder(path, config);
    const said = `curl -H 'Authorization: Bearer ${BEARER}' -d '{"key":"${API_KEY}"}' http://u:${URL_PW}@h/x`;
    rec.add({ role: "tool", content: said, tool_call_id: "c1" });
    rec.info.submission = "+DATABASE = 'postgres://app:pw-in-a-patch@db/x'\n";
    await rec.save();

    const file = readJson<Trajectory>(path);
    expect(file.messages[0].content).toBe(`curl -H 'Authorization: ***' -d '{"key":"***"}' http://***@h/x`);
    const model = (file.info.config as { model: { base_url: string; model_kwargs: Record<string, unknown> } })
      .model;
    expect(model.base_url).toBe("http://***@127.0.0.1:9/v1");
    expect(model.model_kwargs.api_key).toBe("***");
    expect(model.model_kwargs.extra_headers).toEqual({ Authorization: "***" });
    expect(file.info.submission).toBe("+DATABASE = 'postgres://app:pw-in-a-patch@db/x'\n");
    const text = readFileSync(path, "utf8");
    for (const secret of [API_KEY, BEARER, URL_PW]) expect(text).not.toContain(secret);
    expect(rec.messages[0].content).toBe(said);
    expect(config.model.model_kwargs.api_key).toBe(API_KEY);
  });

  it("a secret made of digits masks strings only: numbers stay numbers and the file parses", async () => {
    const config = localSwebenchConfig(['model.model_kwargs.api_key="20481024"']);
    const path = join(tempDir(), "t.traj.json");
    const rec = recorder(path, config);
    rec.add({ role: "tool", content: "BUILD 20481024 done", tool_call_id: "c1" });
    rec.info.model_stats = {
      api_calls: 20481024,
      prompt_tokens: 1204810245,
      completion_tokens: 7,
      cost: 0.2048102,
    };
    rec.info.submission = "+VERSION = 20481024\n";
    await rec.save();
    const file = readJson<Trajectory>(path);
    expect(file.messages[0].content).toBe("BUILD *** done");
    expect(file.info.model_stats).toEqual({
      api_calls: 20481024,
      prompt_tokens: 1204810245,
      completion_tokens: 7,
      cost: 0.2048102,
    });
    expect(file.info.submission).toBe("+VERSION = 20481024\n");

    const dir = tempDir();
    const record = new RunRecord(dir, config, { argv: ["-c", "model.model_kwargs.api_key=20481024"] });
    record.set("a__b-1", { exit_status: "Submitted", api_calls: 20481024, cost: 1.20481024 });
    await record.save();
    const run = readJson<{ info: { argv: string[] }; instances: Record<string, unknown> }>(
      join(dir, "run.json"),
    );
    expect(run.info.argv).toEqual(["-c", "model.model_kwargs.api_key=***"]);
    expect(run.instances).toEqual({
      "a__b-1": { exit_status: "Submitted", api_calls: 20481024, cost: 1.20481024 },
    });
  });

  it("a secret ending in a backslash is masked and the trajectory and run.json stay valid JSON", async () => {
    const secret = "tok-ends-in-\\";
    const config = localSwebenchConfig([`model.model_kwargs.api_key=${secret}`]);
    const path = join(tempDir(), "t.traj.json");
    const rec = recorder(path, config);
    // In JSON text `tok-ends-in-"` is `tok-ends-in-\"`: the secret's raw form followed by a quote.
    rec.add({
      role: "tool",
      content: `key=${secret} "quoted ${secret}" not it: "tok-ends-in-"`,
      tool_call_id: "c1",
    });
    await rec.save();
    expect(readJson<Trajectory>(path).messages[0].content).toBe(
      'key=*** "quoted ***" not it: "tok-ends-in-"',
    );

    const dir = tempDir();
    await new RunRecord(dir, config, { note: `with ${secret}, not "tok-ends-in-"` }).save();
    expect(readJson<{ info: unknown }>(join(dir, "run.json")).info).toEqual({
      note: 'with ***, not "tok-ends-in-"',
    });
  });

  it("host variables holding ordinary words (DB_PASSWORD=password) leave those words alone; token-like ones are masked", async () => {
    const names = ["PLTEST_DB_PASSWORD", "PLTEST_POSTGRES_PASSWORD", "PLTEST_HF_TOKEN"];
    const saved = names.map((n) => process.env[n]);
    Object.assign(process.env, {
      PLTEST_DB_PASSWORD: "password",
      PLTEST_POSTGRES_PASSWORD: "postgres",
      PLTEST_HF_TOKEN: "hf_abc123xyz",
    });
    try {
      const dir = tempDir();
      const log = new RunLog(dir);
      log.line("enter password for postgres with hf_abc123xyz");
      await log.close();
      expect(readFileSync(join(dir, "run.log"), "utf8").replace(/^\S+Z /gm, "")).toBe(
        "enter password for postgres with ***\n",
      );
      await new RunRecord(dir, localSwebenchConfig(), { note: "password postgres hf_abc123xyz" }).save();
      expect(readJson<{ info: unknown }>(join(dir, "run.json")).info).toEqual({
        note: "password postgres ***",
      });
    } finally {
      names.forEach((n, i) => {
        if (saved[i] === undefined) delete process.env[n];
        else process.env[n] = saved[i];
      });
    }
  });

  it("run.json masks secrets in info.argv and info.config_sources as well as in config", async () => {
    const dir = tempDir();
    const argv = [
      "-c",
      `model.model_kwargs.api_key=${API_KEY}`,
      "-c",
      HEADERS_ARG,
      "--base-url",
      `http://user:${URL_PW}@h/v1`,
    ];
    const record = new RunRecord(dir, secretConfig(), {
      argv,
      config_sources: [`-c ${HEADERS_ARG}`, `--base-url http://user:${URL_PW}@h/v1`],
    });
    await record.save();
    const run = readJson<{
      config: { model: { base_url: string } };
      info: { argv: string[]; config_sources: string[] };
    }>(join(dir, "run.json"));
    expect(run.info.argv).toEqual([
      "-c",
      "model.model_kwargs.api_key=***",
      "-c",
      'model.model_kwargs.extra_headers={"Authorization":"***"}',
      "--base-url",
      "http://***@h/v1",
    ]);
    expect(run.info.config_sources).toEqual([
      '-c model.model_kwargs.extra_headers={"Authorization":"***"}',
      "--base-url http://***@h/v1",
    ]);
    expect(run.config.model.base_url).toBe("http://***@127.0.0.1:9/v1");
  });

  it("run.log masks secrets in every line", async () => {
    const dir = tempDir();
    const log = new RunLog(dir, { config: secretConfig() });
    log.line(`request with key ${API_KEY} to http://user:${URL_PW}@h/v1 failed`);
    log.line(`headers:\n  Authorization: Bearer ${BEARER}`);
    await log.close();
    const lines = readFileSync(join(dir, "run.log"), "utf8").replace(/^\S+Z /gm, "");
    expect(lines).toBe(
      "request with key *** to http://***@h/v1 failed\nheaders:\n      Authorization: ***\n",
    );
  });
});

describe("resuming a folder while a host secret matches a config value", () => {
  it("is not a config change: run.json's scrubbed config is compared with the current one scrubbed alike", async () => {
    const root = tempDir("patchloop-secrets-");
    const f = buildFixtureInstances(root, { count: 1, repos: 1 });
    const value = "drift-tok-123abc";
    const saved = process.env.PLTEST_DRIFT_TOKEN;
    process.env.PLTEST_DRIFT_TOKEN = value;
    try {
      const out = join(root, "run");
      const run = () =>
        runBatch({
          config: localSwebenchConfig([`environment.env.PLTEST_VALUE=${value}`]),
          instances: f.rows,
          outputDir: out,
          reposDir: f.reposDir,
          modelFor: () => new ScriptedModel([bash(FIX_COMMAND), bash(SUBMIT_COMMAND)]),
        });
      expect(Object.values((await run()).statuses)).toEqual(["Submitted"]);
      const written = readJson<{ config: { environment: { env: Record<string, string> } } }>(
        join(out, "run.json"),
      );
      expect(written.config.environment.env.PLTEST_VALUE).toBe("***");
      const again = await run();
      expect(again.skipped).toEqual([f.rows[0].instance_id]);
      expect(readJson<{ info: Record<string, unknown> }>(join(out, "run.json")).info.earlier_configs).toBe(
        undefined,
      );
    } finally {
      if (saved === undefined) delete process.env.PLTEST_DRIFT_TOKEN;
      else process.env.PLTEST_DRIFT_TOKEN = saved;
    }
  });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, [join(ROOT, "bin/patchloop.js"), "swebench", ...args], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (c: Buffer) => {
      out += c;
    });
    proc.stderr.on("data", (c: Buffer) => {
      err += c;
    });
    proc.on("error", fail);
    proc.on("close", (code) => done({ code, out, err }));
  });
}

describe("patchloop swebench with secrets in flags, config and environment", () => {
  it("writes none of them into any file of the run folder", async () => {
    const root = tempDir("patchloop-secrets-");
    const f = buildFixtureInstances(root, { count: 1, repos: 1 });
    const id = f.rows[0].instance_id;
    const server = await startFakeLlmServer();
    const secrets = {
      apiKey: API_KEY,
      bearer: BEARER,
      urlPassword: URL_PW,
      hfToken: "hf_SECRETVALUE123",
      hubToken: "hub_SECRETVALUE456",
      configEnvToken: "envtok-SECRET5555",
      hostPassword: "pass-SECRET24680",
    };
    const listEnv = "env | grep -E '^(HF_TOKEN|HUGGING_FACE_HUB_TOKEN|PLTEST_)' | sort";
    server.enqueue(
      { type: "reply", content: "look", toolCalls: [{ name: "bash", arguments: { command: listEnv } }] },
      { type: "reply", content: "fix", toolCalls: [{ name: "bash", arguments: { command: FIX_COMMAND } }] },
      {
        type: "reply",
        content: "submit",
        toolCalls: [{ name: "bash", arguments: { command: SUBMIT_COMMAND } }],
      },
    );
    try {
      const out = join(root, "run");
      const base = localBatchArgs(f.datasetPath, server.url.replace("://", `://user:${URL_PW}@`), f.reposDir);
      const argv = [
        ...base,
        "-o",
        out,
        "-c",
        `model.model_kwargs.api_key=${API_KEY}`,
        "-c",
        HEADERS_ARG,
        "-c",
        `environment.env.PLTEST_TOKEN=${secrets.configEnvToken}`,
      ];
      const r = await runCli(argv, {
        ...process.env,
        HF_TOKEN: secrets.hfToken,
        HUGGING_FACE_HUB_TOKEN: secrets.hubToken,
        PLTEST_SERVICE_PASSWORD: secrets.hostPassword,
      });
      expect(r.err).not.toMatch(/Error/);
      expect(r.code).toBe(0);
      // The model was reached through the URL with credentials: three calls, after what the start
      // asks of the server (the preflight's and the family's model list, run.json's reproduce facts).
      expect(server.requests.filter((q) => q.method === "POST")).toHaveLength(3);
      expect(
        [...new Set(server.requests.filter((q) => q.method === "GET").map((q) => q.path))].sort(),
      ).toEqual(["/v1/models", "/version"]);

      const traj = trajectory(out, id);
      expect(traj.info.exit_status).toBe("Submitted");
      expect(traj.info.submission).toBe(f.rows[0].patch);
      const listed = traj.messages.find((m) => m.role === "tool" && String(m.content).includes("PLTEST_"));
      expect(String(listed?.content)).toContain("PLTEST_SERVICE_PASSWORD=***\nPLTEST_TOKEN=***\n");
      expect(String(listed?.content)).not.toContain("HF_TOKEN");
      expect(String(listed?.content)).not.toContain("HUGGING_FACE_HUB_TOKEN");

      const run = readJson<{ info: { argv: string[] } }>(join(out, "run.json"));
      expect(run.info.argv).toEqual([
        "swebench",
        ...localBatchArgs(f.datasetPath, server.url.replace("://", "://***@"), f.reposDir),
        "-o",
        out,
        "-c",
        "model.model_kwargs.api_key=***",
        "-c",
        'model.model_kwargs.extra_headers={"Authorization":"***"}',
        "-c",
        "environment.env.PLTEST_TOKEN=***",
      ]);
      for (const [name, secret] of Object.entries(secrets))
        expect((r.out + r.err).includes(secret), `${name} on the console`).toBe(false);
      const files = filesUnder(out).map((p) => p.slice(out.length + 1));
      expect(files).toContain("run.json");
      expect(files).toContain("run.log");
      expect(files).toContain(`${id}/${id}.traj.json`);
      for (const file of files) {
        const text = readFileSync(join(out, file), "utf8");
        for (const [name, secret] of Object.entries(secrets))
          expect(text.includes(secret), `${name} in ${file}`).toBe(false);
      }
      expect(readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"))[id].model_patch).toBe(
        f.rows[0].patch,
      );
    } finally {
      await server.close();
    }
  });

  it("prints none of them on the console when the model URL fails (preflight, end lines, warnings, summary)", async () => {
    const root = tempDir("patchloop-secrets-");
    const f = buildFixtureInstances(root, { count: 1, repos: 1 });
    const id = f.rows[0].instance_id;
    const server = await startFakeLlmServer();
    try {
      const out = join(root, "run");
      const badUrl = server.url.replace("://", `://user:${URL_PW}@`);
      const secrets = [
        "-c",
        `model.model_kwargs.api_key=${API_KEY}`,
        "-c",
        HEADERS_ARG,
        "-c",
        "model.retry={max_tries: 1, initial_delay: 0, max_delay: 0}",
      ];
      const env = { ...process.env, PLTEST_SERVICE_PASSWORD: "pass-SECRET24680" };
      // A base URL with no model list is refused before anything starts, its credentials masked.
      const refused = await runCli(
        [...localBatchArgs(f.datasetPath, `${badUrl}/nope`, f.reposDir), "-o", out, ...secrets],
        env,
      );
      expect(refused.code).toBe(2);
      const shown = `${server.url.replace("://", "://***@")}/nope/v1`;
      expect(refused.err).toContain(`error: the model server at ${shown} has no ${shown}/models (HTTP 404)`);
      // A call the server refuses (404 is final, no retry): the instance ends ModelError, its end line says why.
      server.enqueue({ type: "error", status: 404, body: { error: { message: "no such model: fake" } } });
      const r = await runCli(
        [...localBatchArgs(f.datasetPath, badUrl, f.reposDir), "-o", out, ...secrets],
        env,
      );
      expect(r.code).toBe(0);
      expect(trajectory(out, id).info.exit_status).toBe("ModelError");
      expect(r.err).toContain(`${id} ModelError (0 calls, $0.00, `);
      expect(r.err).toContain(
        `s): openai/fake: HTTP 404: no such model: fake (requested ${server.url.replace("://", "://***@")}/v1/chat/completi`,
      );
      expect(r.out).toMatch(/^exit status {2}this run {2}earlier {2}total\n/);
      const console_ = refused.out + refused.err + r.out + r.err;
      for (const secret of [API_KEY, BEARER, URL_PW, "pass-SECRET24680"])
        expect(console_).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});
