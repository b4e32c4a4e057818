import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { Trajectory } from "../../../src/agent/trajectory-types.js";
import { loadConfig } from "../../../src/config/load.js";
import type { Config } from "../../../src/config/schema.js";
import type { ScriptedResponse } from "../../../src/models/scripted.js";

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
  usage: { promptTokens: 100, completionTokens: 10 },
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
