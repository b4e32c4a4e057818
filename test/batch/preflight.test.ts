import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register } from "../../src/cli/swebench.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server.js";
import { freePort } from "../distributed/helpers.js";
import {
  buildFixtureInstances,
  type FixtureInstances,
  STEPWISE_CALLS,
  STEPWISE_COMMAND,
} from "../support/fixture-instances.js";
import { tempDir } from "../support/tmp.js";
import { localBatchArgs, readJson } from "./helpers.js";

/** `patchloop swebench ARGS` in this process; what went to stderr (config errors) and the exit code. */
async function cli(args: string[]): Promise<{ code: number | undefined; stderr: string; err: string }> {
  const err: string[] = [];
  const program = new Command("patchloop").exitOverride();
  register(program, { out: () => {}, err: (t) => err.push(t), tty: false, progressIntervalMs: 600_000 });
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((t: string) => stderr.push(String(t)) > 0) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "patchloop", "swebench", ...args]);
    return { code: process.exitCode as number | undefined, stderr: stderr.join(""), err: err.join("") };
  } finally {
    process.stderr.write = write;
    process.exitCode = undefined;
  }
}

describe("preflight: what would fail every instance is one error before the first starts (exit 2)", () => {
  let f: FixtureInstances;
  let a: FakeLlmServer;
  let b: FakeLlmServer;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "patchloop-preflight-"));
    f = buildFixtureInstances(root, { count: 6, repos: 3 });
    const behaviour = {
      type: "reply",
      content: "step",
      toolCalls: [{ name: "bash", arguments: { command: STEPWISE_COMMAND } }],
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    } as const;
    a = await startFakeLlmServer({ defaultBehaviour: { ...behaviour, toolCalls: [...behaviour.toolCalls] } });
    b = await startFakeLlmServer({ defaultBehaviour: { ...behaviour, toolCalls: [...behaviour.toolCalls] } });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("a selected repository without a clone in --repos-dir", async () => {
    const out = join(tempDir(), "run");
    const clone = join(f.reposDir, "acme__lib1");
    renameSync(clone, `${clone}.away`);
    try {
      const r = await cli([...localBatchArgs(f.datasetPath, a.url, f.reposDir), "-o", out]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: --repos-dir ${f.reposDir} has no clone of 1 of the 3 selected repositories: acme/lib1 (${clone}). ` +
          "Every instance of those would end as EnvironmentError. Clone each there as owner__repo (e.g. git clone " +
          `https://github.com/acme/lib1.git ${clone}), or narrow the selection\n`,
      );
      expect(existsSync(out)).toBe(false);
    } finally {
      renameSync(`${clone}.away`, clone);
    }
  });

  it("a model server that does not answer, and a base URL without /v1", async () => {
    const out = join(tempDir(), "run");
    const port = await freePort();
    const down = await cli([
      ...localBatchArgs(f.datasetPath, `http://127.0.0.1:${port}`, f.reposDir),
      "-o",
      out,
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr).toBe(
      `error: the model server at http://127.0.0.1:${port}/v1 does not answer (ECONNREFUSED): start it, or check model.base_url\n`,
    );
    const args = localBatchArgs(f.datasetPath, a.url, f.reposDir).map((x) => x.replace(`${a.url}/v1`, a.url));
    const noV1 = await cli([...args, "-o", out]);
    expect(noV1.code).toBe(2);
    expect(noV1.stderr).toBe(
      `error: the model server at ${a.url} has no ${a.url}/models (HTTP 404): check model.base_url ` +
        "(an OpenAI-compatible server's usually ends in /v1)\n",
    );
    expect(existsSync(out)).toBe(false);
  });

  it("doctor's quick part: max_tokens not below the server's max_model_len stops; a model it does not list is a warning", async () => {
    // a vLLM-like server listing "fake-model" with max_model_len 4096; the batch asks for "fake"
    const c = await startFakeLlmServer({
      flavor: "vllm",
      contextLength: 4096,
      defaultBehaviour: {
        type: "reply",
        content: "step",
        toolCalls: [{ name: "bash", arguments: { command: STEPWISE_COMMAND } }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
    });
    try {
      const out = join(tempDir(), "run");
      const unlisted = [...localBatchArgs(f.datasetPath, c.url, f.reposDir), "-o", out];
      const args = unlisted.map((x) => (x === "openai/fake" ? "openai/fake-model" : x));
      const stop = await cli([...args, "-c", "model.model_kwargs.max_tokens=4096"]);
      expect(stop.code).toBe(2);
      expect(stop.stderr).toBe(
        `error: the model server at ${c.url}/v1 serves "fake-model" with a context of 4096 tokens (max_model_len in GET /models), ` +
          "and model.model_kwargs.max_tokens is 4096: no room is left for the prompt, so every request would be refused. " +
          "Lower it (e.g. -c model.model_kwargs.max_tokens=1024) or serve a longer context (vLLM --max-model-len)\n",
      );
      expect(stop.err).toBe("");
      expect(existsSync(out)).toBe(false);
      // no model request was made (the family's look at the server also asks GET /models)
      expect(new Set(c.requests.map((r) => `${r.method} ${r.path}`))).toEqual(new Set(["GET /v1/models"]));
      // below the context: the run goes on, with a warning above half of it
      const goes = await cli([...args, "-c", "model.model_kwargs.max_tokens=3000"]);
      expect([goes.code, goes.stderr]).toEqual([0, ""]);
      expect(goes.err).toContain(
        `WARNING: the model server at ${c.url}/v1: model.model_kwargs.max_tokens 3000 is more than half the context ` +
          "(4096 tokens): a long trajectory soon leaves no room; at most 1024 is safer\n",
      );
      expect(c.requests.filter((r) => r.method === "POST").length).toBe(6 * STEPWISE_CALLS);
      // a model the server does not list (as the fake server's tests ask for "fake"): a warning, the run goes on
      const other = await cli([...unlisted.map((x) => (x === out ? join(tempDir(), "run2") : x))]);
      expect([other.code, other.stderr]).toEqual([0, ""]);
      expect(other.err).toContain(
        `WARNING: the model server at ${c.url}/v1 does not list "fake" in GET /models (it lists fake-model): ` +
          "requests may fail; check -m (`patchloop doctor` checks the server in full)\n",
      );
    } finally {
      await c.close();
    }
  });

  it.skipIf(spawnSync("docker", ["--version"]).status !== 0)(
    "a container engine that does not answer is named as such",
    async () => {
      const saved = process.env.DOCKER_HOST;
      process.env.DOCKER_HOST = `unix://${join(tempDir(), "no-daemon.sock")}`;
      try {
        const r = await cli([
          ...localBatchArgs(f.datasetPath, a.url, f.reposDir).map((x) => (x === "local" ? "docker" : x)),
          "-o",
          join(tempDir(), "run"),
        ]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(
          /^error: environment docker: `docker info` failed: .+[.?] The Docker engine is not answering: start the Docker daemon/,
        );
        expect(r.stderr).not.toContain("pull");
      } finally {
        if (saved === undefined) delete process.env.DOCKER_HOST;
        else process.env.DOCKER_HOST = saved;
      }
    },
  );

  it("model.base_url as a list works in one process: requests spread, counted per replica in run.json; one down is a warning", async () => {
    const out = join(tempDir(), "run");
    const gone = `http://127.0.0.1:${await freePort()}/v1`;
    const list = `model.base_url=[${a.url}/v1, ${b.url}/v1, ${gone}]`;
    const args = localBatchArgs(f.datasetPath, a.url, f.reposDir).filter(
      (x, i, all) => x !== `${a.url}/v1` && all[i + 1] !== `${a.url}/v1`,
    );
    const r = await cli([...args, "-c", list, "-w", "3", "-o", out]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.err).toContain(`WARNING: the model server at ${gone} does not answer (ECONNREFUSED)`);
    const run = readJson<{ replicas: Record<string, { requests: number; failures: number }> }>(
      join(out, "run.json"),
    );
    const served = run.replicas[`${a.url}/v1`].requests + run.replicas[`${b.url}/v1`].requests;
    expect(served).toBe(6 * STEPWISE_CALLS);
    expect(run.replicas[`${a.url}/v1`].requests).toBeGreaterThan(0);
    expect(run.replicas[`${b.url}/v1`].requests).toBeGreaterThan(0);
    // The replica that is down failed once, then was left out for the cooldown (30 s).
    expect(run.replicas[gone]).toEqual({ requests: 1, failures: 1 });
  });
});
