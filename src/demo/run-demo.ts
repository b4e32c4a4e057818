import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../agent/agent.js";
import { loadConfig } from "../config/load.js";
import { createLocalEnvironment } from "../environments/local.js";
import type { Model } from "../models/types.js";
import type { TaskOutcome } from "../task/outcome.js";
import { runTask } from "../task/run-task.js";
import { DEMO_ROOT, DEMO_TASK, demoRepoIn, HIDDEN_TEST, writeDemoRepo } from "./repo.js";

/** The demo task's instance id (its folder and preds.json key). */
export const DEMO_ID = "textstats-1";

/**
 * Runs the bundled task with `model` (the replay model in `patchloop demo`), as any task runs, on a
 * repository written afresh under `root` (default: where the recording was made).
 */
export async function runDemoAgent(
  model: Model,
  trajectoryPath: string,
  onEvent?: (e: AgentEvent) => void,
  root: string = DEMO_ROOT,
): Promise<TaskOutcome> {
  const repo = demoRepoIn(root);
  writeDemoRepo(repo);
  const { config } = loadConfig({
    configArgs: ["default", `model.model_name=${model.name}`, "agent.step_limit=20"],
    defaultConfig: "default",
  });
  return runTask({
    config,
    instanceId: DEMO_ID,
    task: DEMO_TASK,
    instance: { repo: "patchloop/textstats", instance_id: DEMO_ID, problem_statement: DEMO_TASK },
    model: () => model,
    modelName: model.name,
    trajectoryPath,
    open: async () => {
      const env = createLocalEnvironment({
        cwd: repo,
        env: config.environment.env,
        timeout: config.environment.timeout,
      });
      return { env, cleanup: () => env.close() };
    },
    signal: new AbortController().signal,
    onEvent,
  });
}

export interface HiddenTestResult {
  passed: boolean;
  output: string;
}

/**
 * Grades a patch under `root`: a fresh copy of the base repository, the patch applied with git
 * apply, the hidden test run.
 */
export function gradeDemoPatch(
  patch: string,
  applyPatch = true,
  root: string = DEMO_ROOT,
): HiddenTestResult & { applied: boolean } {
  const dir = join(root, applyPatch ? "graded" : "base");
  rmSync(dir, { recursive: true, force: true });
  const base = writeDemoRepo(join(root, "pristine"));
  cpSync(join(root, "pristine"), dir, { recursive: true });
  execFileSync("git", ["checkout", "-q", base], { cwd: dir });
  if (applyPatch) {
    writeFileSync(join(root, "model.patch"), patch);
    const r = spawnSync("git", ["apply", "--verbose", join(root, "model.patch")], {
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
