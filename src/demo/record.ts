import { join } from "node:path";
import { ScriptedModel } from "../models/scripted.js";
import { packageRoot } from "../package-root.js";
import { runDemoAgent } from "./run-demo.js";
import { DEMO_REPLIES } from "./script.js";

/** Regenerates assets/demo/demo.traj.json from the scripted replies (a maintainer tool, not a command). */
async function record(): Promise<void> {
  const model = new ScriptedModel(DEMO_REPLIES);
  const path = join(packageRoot(), "assets", "demo", "demo.traj.json");
  const result = await runDemoAgent(model, path);
  model.assertAllUsed();
  process.stdout.write(`${result.exit_status}: wrote ${path}\n`);
}

await record();
