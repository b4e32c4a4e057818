import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { parse as parseYaml } from "yaml";
import type { Trajectory } from "../../src/agent/trajectory-types.js";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import type { ScriptedResponse } from "../../src/models/scripted.js";
import {
  type FakeLlmServer,
  type FakeLlmServerOptions,
  startFakeLlmServer,
} from "../../src/testing/fake-llm-server.js";
import { buildFixtureInstances, type FixtureInstances } from "../support/fixture-instances.js";

/** The swebench config in the local environment (what `--environment local` gives). */
export function localSwebenchConfig(extra: string[] = []): Config {
  return loadConfig({
    configArgs: ["swebench", "model.model_name=scripted", "environment.environment_class=local", ...extra],
    defaultConfig: "swebench",
  }).config;
}

/**
 * `patchloop swebench` arguments for a local batch of `datasetPath` against the fake server at
 * `serverUrl` (model openai/fake), with `--repos-dir` when `reposDir` is given.
 */
export function localBatchArgs(datasetPath: string, serverUrl: string, reposDir?: string): string[] {
  return [
    "--subset",
    datasetPath,
    "-m",
    "openai/fake",
    "--base-url",
    `${serverUrl}/v1`,
    "--environment",
    "local",
    ...(reposDir ? ["--repos-dir", reposDir] : []),
  ];
}

/** A scripted reply that runs one bash command. */
export const bash = (command: string, cost = 0): ScriptedResponse => ({
  content: "next step",
  toolCalls: [{ name: "bash", arguments: { command } }],
  usage: { prompt_tokens: 100, completion_tokens: 10 },
  cost,
});

export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

export function trajectory(out: string, id: string): Trajectory {
  return readJson<Trajectory>(join(out, id, `${id}.traj.json`));
}

/**
 * Parses every file a run folder holds (throws naming the first that does not parse) and returns
 * the exit status of every trajectory (null: still running).
 */
/**
 * Asserts that every row of a batch run in `out` ended Submitted after `calls` model calls, with its
 * gold patch in preds.json; returns the trajectories by instance id.
 */
export function expectAllSubmitted(
  out: string,
  rows: Array<{ instance_id: string; patch: string }>,
  calls: number,
): Map<string, Trajectory> {
  const preds = readJson<Record<string, { model_patch: string }>>(join(out, "preds.json"));
  const seen = new Map<string, Trajectory>();
  for (const row of rows) {
    const t = trajectory(out, row.instance_id);
    expect([row.instance_id, t.info.exit_status, t.info.model_stats.api_calls]).toEqual([
      row.instance_id,
      "Submitted",
      calls,
    ]);
    expect(preds[row.instance_id].model_patch).toBe(row.patch);
    seen.set(row.instance_id, t);
  }
  return seen;
}

export function parseRunFolder(out: string): Record<string, string | null> {
  const statuses: Record<string, string | null> = {};
  if (!existsSync(out)) return statuses;
  for (const name of readdirSync(out)) {
    const path = join(out, name);
    try {
      if (name.endsWith(".json")) readJson(path);
      if (name.endsWith(".yaml")) parseYaml(readFileSync(path, "utf8"));
      const traj = join(path, `${name}.traj.json`);
      if (existsSync(traj)) statuses[name] = readJson<Trajectory>(traj).info.exit_status;
    } catch (err) {
      throw new Error(`${path} does not parse: ${(err as Error).message}`);
    }
  }
  return statuses;
}

/** Work-tree folders of a process left in the temp dir. */
export function workRootsOf(tmp: string, pid: number): string[] {
  return readdirSync(tmp).filter((n) => n.startsWith(`patchloop-batch-${pid}-`));
}

/**
 * What a batch test against the pytest fixture instances runs on, set up before its tests and torn
 * down after them: a temp root with `fixture` instances, a fake model server, and (unless
 * `envCheckCache` is false) the environment check's cache under root (PATCHLOOP_ENV_CHECK_CACHE:
 * --evaluate and select run the check).
 */
export interface FixtureBatch {
  root: string;
  f: FixtureInstances;
  server: FakeLlmServer;
}

/** Registers the hooks that set up and tear down a FixtureBatch; its fields are there once `beforeAll` ran. */
export function useFixtureBatch(
  prefix: string,
  fixture: { count: number; repos: number },
  serverOpts?: FakeLlmServerOptions,
  envCheckCache = true,
): FixtureBatch {
  const b = {} as FixtureBatch;
  beforeAll(async () => {
    b.root = mkdtempSync(join(tmpdir(), prefix));
    if (envCheckCache) process.env.PATCHLOOP_ENV_CHECK_CACHE = join(b.root, "env-checks");
    b.f = buildFixtureInstances(b.root, fixture);
    b.server = await startFakeLlmServer(serverOpts);
  });
  afterAll(async () => {
    await b.server.close();
    if (envCheckCache) delete process.env.PATCHLOOP_ENV_CHECK_CACHE;
    rmSync(b.root, { recursive: true, force: true });
  });
  return b;
}

/**
 * Registers the hooks that build `fixture` instances in a fresh temp folder before the tests and
 * remove it after them; `.f` is there once `beforeAll` ran.
 */
export function useFixtureInstances(
  prefix: string,
  fixture: { count: number; repos: number },
): { f: FixtureInstances } {
  const x = {} as { f: FixtureInstances };
  beforeAll(() => {
    x.f = buildFixtureInstances(mkdtempSync(join(tmpdir(), prefix)), fixture);
  });
  afterAll(() => rmSync(join(x.f.reposDir, ".."), { recursive: true, force: true }));
  return x;
}
