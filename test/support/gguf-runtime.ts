import { describe, it } from "vitest";
import { runtimeProblem } from "../../src/models/gguf/model-file.js";
import { IN_CI } from "./engines.js";

/**
 * `describe` for tests that run the embedded GGUF runtime (node-llama-cpp, an optional dependency):
 * they run when it is installed; in CI, which installs it, a missing one is a failing test naming
 * why; elsewhere the suite is skipped with the reason in its title.
 */
export function describeWithGguf(title: string, body: () => void): void {
  const problem = runtimeProblem();
  if (problem === null) describe(title, body);
  else if (IN_CI)
    describe(title, () => {
      it("needs node-llama-cpp", () => {
        throw new Error(`node-llama-cpp is required in CI: ${problem}`);
      });
    });
  else describe.skip(`${title} (skipped: ${problem})`, body);
}
