import { loadConfig } from "../../src/config/load.js";
import type { EnvironmentProvider } from "../../src/grading/eval-environment.js";
import { makeEvalProvider } from "../../src/grading/make-provider.js";

/** What `patchloop eval --environment local --repos-dir DIR` grades with: fresh checkouts of `reposDir` on this machine. */
export function localGrading(reposDir: string): EnvironmentProvider {
  const { environment } = loadConfig({ configArgs: ["swebench"], defaultConfig: "swebench" }).config;
  return makeEvalProvider({ kind: "local", environment, reposDir, runId: "test", timeout: 60 });
}
