import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../config/load.js";
import { demoRecordingFor, demoRepoIn, makeDemoRoot } from "../demo/repo.js";
import { DEMO_ID, gradeDemoPatch, runDemoAgent } from "../demo/run-demo.js";
import { createModel } from "../models/factory/create-model.js";
import { packageRoot } from "../package-root.js";
import { PredsFile, predOf } from "../run-folder/preds-file.js";
import { guarded } from "./common.js";
import { inspectHint } from "./inspect.js";
import { createPrinter } from "./printer.js";

interface DemoFlags {
  output?: string;
  quiet?: boolean;
}

/** `patchloop demo`: the bundled task solved offline by a recorded trajectory, then graded by a hidden test. */
export async function demoCommand(flags: DemoFlags): Promise<number> {
  const out = (s: string) => process.stdout.write(s);
  const recording = join(packageRoot(), "assets", "demo", "demo.traj.json");
  // a folder of this run's own: the repository, the grading copies, the recording with its paths
  const root = makeDemoRoot();
  try {
    const replay = join(root, "recording.traj.json");
    writeFileSync(replay, demoRecordingFor(readFileSync(recording, "utf8"), demoRepoIn(root)));
    const { config } = loadConfig({
      configArgs: [`model.model_name=replay:${replay}`],
      defaultConfig: "default",
    });
    const model = createModel(config.model);
    const runDir = resolve(flags.output ?? join("patchloop-runs", "demo"));
    const trajPath = join(runDir, DEMO_ID, `${DEMO_ID}.traj.json`);
    out(
      `patchloop demo: a bug in a small JavaScript library, fixed offline by a recorded model (${recording})\n\n`,
    );
    const outcome = await runDemoAgent(
      model,
      trajPath,
      flags.quiet ? undefined : createPrinter(out, process.stdout.isTTY === true),
      root,
    );
    await new PredsFile(runDir).set(predOf(outcome, model.name));
    const before = gradeDemoPatch("", false, root);
    const after = gradeDemoPatch(outcome.patch, true, root);
    out(`\nexit status: ${outcome.exit_status}\npatch (${outcome.patch.length} bytes):\n${outcome.patch}\n`);
    out(`hidden test before the patch: ${before.passed ? "PASS" : "FAIL"}\n`);
    out(
      `hidden test after the patch:  ${!after.applied ? "PATCH DID NOT APPLY" : after.passed ? "PASS" : "FAIL"}\n`,
    );
    if (!after.passed) out(after.output);
    out(`\ntrajectory: ${trajPath}\n${inspectHint(runDir)}\n`);
    return outcome.exit_status === "Submitted" && after.passed && !before.passed ? 0 : 1;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function register(program: Command): void {
  program
    .command("demo")
    .description("offline demo: a recorded model fixes a bundled bug; the patch is graded by a hidden test")
    .option("-o, --output <DIR>", "run folder (default: patchloop-runs/demo)")
    .option("--quiet", "do not print the steps")
    .action((flags: DemoFlags) => guarded(() => demoCommand(flags)));
}
