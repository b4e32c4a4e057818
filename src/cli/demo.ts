import { join, resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../config/load.js";
import { gradeDemoPatch, runDemoAgent } from "../demo/run-demo.js";
import { createModel } from "../models/create-model.js";
import { packageRoot } from "../package-root.js";
import { writeFileAtomic } from "../util/atomic-write.js";
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
  const { config } = loadConfig({
    configArgs: [`model.model_name=replay:${recording}`],
    defaultConfig: "default",
  });
  const model = createModel(config.model);
  const runDir = resolve(flags.output ?? join("patchloop-runs", "demo"));
  const trajPath = join(runDir, "textstats-1", "textstats-1.traj.json");
  out(
    `patchloop demo: a bug in a small JavaScript library, fixed offline by a recorded model (${recording})\n\n`,
  );
  const result = await runDemoAgent(
    model,
    trajPath,
    flags.quiet ? undefined : createPrinter(out, process.stdout.isTTY === true),
  );
  await writeFileAtomic(
    join(runDir, "preds.json"),
    `${JSON.stringify({ "textstats-1": { instance_id: "textstats-1", model_name_or_path: model.name, model_patch: result.submission } }, null, 2)}\n`,
  );
  const before = gradeDemoPatch("", false);
  const after = gradeDemoPatch(result.submission);
  out(
    `\nexit status: ${result.exitStatus}\npatch (${result.submission.length} bytes):\n${result.submission}\n`,
  );
  out(`hidden test before the patch: ${before.passed ? "PASS" : "FAIL"}\n`);
  out(
    `hidden test after the patch:  ${!after.applied ? "PATCH DID NOT APPLY" : after.passed ? "PASS" : "FAIL"}\n`,
  );
  if (!after.passed) out(after.output);
  out(`\ntrajectory: ${trajPath}\n${inspectHint(runDir)}\n`);
  return result.exitStatus === "Submitted" && after.passed && !before.passed ? 0 : 1;
}

export function register(program: Command): void {
  program
    .command("demo")
    .description("offline demo: a recorded model fixes a bundled bug; the patch is graded by a hidden test")
    .option("-o, --output <DIR>", "run folder (default: patchloop-runs/demo)")
    .option("--quiet", "do not print the steps")
    .action((flags: DemoFlags) => guarded(() => demoCommand(flags)));
}
