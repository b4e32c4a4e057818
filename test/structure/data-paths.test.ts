import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataPaths, PATHS, pathTable } from "../../bench/data-paths.js";

// In the integration tier: it type-checks all of src/ (tens of seconds), though it starts nothing.
const DOC = join(import.meta.dirname, "..", "..", "docs", "architecture.md");

describe("the outcome's path through src/, measured (bench/data-paths.ts)", () => {
  const figures = dataPaths();

  it("finds every path from its maker to its writer, through the folders the architecture draws", () => {
    expect(figures.map((f) => [f.name, f.steps[0], f.steps.at(-1)])).toEqual([
      [PATHS[0].name, "runTask (task/run-task.ts)", "predOf (run-folder/preds-file.ts)"],
      [PATHS[1].name, "runTask (task/run-task.ts)", "JobProcessor.deliverOnce (distributed/worker-jobs.ts)"],
      [
        PATHS[2].name,
        "QueueCoordinator.onResult (distributed/coordinator-dispatch.ts)",
        "predOf (run-folder/preds-file.ts)",
      ],
    ]);
    // One instance of a batch passes the run folder, which alone writes preds.json (through predOf).
    expect(figures[0].steps).toContain("RunFolder.accept (batch/run-folder.ts)");
    expect(figures[2].steps).toContain("(handed over)");
    // predOf is the one reshape into a preds.json entry on both paths that end there.
    for (const f of [figures[0], figures[2]])
      expect(f.reshapes.filter((r) => r.startsWith("predOf "))).toEqual([
        "predOf (run-folder/preds-file.ts): gives { instance_id: string; model_name_or_path: string; model_patch: string; }",
      ]);
  });

  it("docs/architecture.md states the figures the bench measures", () => {
    const doc = readFileSync(DOC, "utf8");
    const between = /<!-- data-paths:start -->\n([\s\S]*?)\n<!-- data-paths:end -->/.exec(doc)?.[1];
    expect(between).toBe(pathTable(figures));
  });
});
