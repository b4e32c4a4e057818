import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureDistBuilt } from "./support/build-dist.js";

/**
 * Runs once per tier that has test files in this run (vitest.config.ts). The integration tier
 * spawns the real CLI and Node scripts that import dist/, so for it dist/ is brought up to date
 * with the sources first (built only when it is not), and again before each rerun in watch mode;
 * the unit tier never needs dist/.
 *
 * The history cache of work trees (src/instance/history-cache.ts) goes to a folder of this
 * test run, removed at the end, instead of the user's ~/.cache.
 */
export default function setup(project: TestProject): () => void {
  if (project.name === "integration") {
    const build = () => {
      const why = ensureDistBuilt();
      if (why) process.stderr.write(`[global-setup] built dist/: ${why}\n`);
    };
    build();
    // In watch mode, before each rerun too.
    project.onTestsRerun(build);
  }
  const own = process.env.PATCHLOOP_HISTORY_CACHE
    ? undefined
    : mkdtempSync(join(tmpdir(), "patchloop-test-history-"));
  if (own) process.env.PATCHLOOP_HISTORY_CACHE = own;
  return () => {
    if (own) {
      rmSync(own, { recursive: true, force: true });
      delete process.env.PATCHLOOP_HISTORY_CACHE;
    }
  };
}
