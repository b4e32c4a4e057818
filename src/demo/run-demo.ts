import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentEvent, type AgentResult, runAgent } from "../agent/agent.js";
import { createActionRunner } from "../agent/create-runner.js";
import { loadConfig } from "../config/load.js";
import { createLocalEnvironment } from "../environments/local.js";
import type { Model } from "../models/types.js";
import { DEMO_REPO, DEMO_ROOT, DEMO_TASK, HIDDEN_TEST, writeDemoRepo } from "./repo.js";

/** Runs the bundled task with `model` (the replay model in `patchloop demo`). */
export async function runDemoAgent(
  model: Model,
  trajectoryPath: string,
  onEvent?: (e: AgentEvent) => void,
): Promise<AgentResult> {
  writeDemoRepo();
  const { config } = loadConfig({
    configArgs: ["default", `model.model_name=${model.name}`, "agent.step_limit=20"],
    defaultConfig: "default",
  });
  const env = createLocalEnvironment({
    cwd: DEMO_REPO,
    env: config.environment.env,
    timeout: config.environment.timeout,
  });
  try {
    return await runAgent({
      config,
      model,
      env,
      runner: createActionRunner(config),
      task: DEMO_TASK,
      instance: { repo: "patchloop/textstats", instance_id: "textstats-1", problem_statement: DEMO_TASK },
      instanceId: "textstats-1",
      trajectoryPath,
      onEvent,
    });
  } finally {
    await env.close();
  }
}

export interface HiddenTestResult {
  passed: boolean;
  output: string;
}

/** Grades a patch: a fresh copy of the base repository, the patch applied with git apply, the hidden test run. */
export function gradeDemoPatch(patch: string, applyPatch = true): HiddenTestResult & { applied: boolean } {
  const dir = join(DEMO_ROOT, applyPatch ? "graded" : "base");
  rmSync(dir, { recursive: true, force: true });
  const base = writeDemoRepo(join(DEMO_ROOT, "pristine"));
  cpSync(join(DEMO_ROOT, "pristine"), dir, { recursive: true });
  execFileSync("git", ["checkout", "-q", base], { cwd: dir });
  if (applyPatch) {
    writeFileSync(join(DEMO_ROOT, "model.patch"), patch);
    const r = spawnSync("git", ["apply", "--verbose", join(DEMO_ROOT, "model.patch")], {
      cwd: dir,
      encoding: "utf8",
    });
    if (r.status !== 0) return { applied: false, passed: false, output: `${r.stdout}${r.stderr}` };
  }
  mkdirSync(join(dir, "hidden"), { recursive: true });
  writeFileSync(join(dir, "hidden", "median.test.js"), HIDDEN_TEST);
  const t = spawnSync(process.execPath, ["--test", "hidden/"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { applied: true, passed: t.status === 0, output: `${t.stdout}${t.stderr}` };
}
