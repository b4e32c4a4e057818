import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../src/compare/compare-runs.js";
import { loadRun } from "../../src/compare/load-run.js";
import { tempDir } from "../support/tmp.js";

/** A run folder: run.json's instance lines and an eval summary in DIR/eval/r1/. */
function runFolder(
  instances: Record<string, Record<string, unknown>>,
  resolved: string[],
  unresolved: string[],
  empty: string[],
) {
  const dir = tempDir();
  mkdirSync(join(dir, "eval", "r1"), { recursive: true });
  writeFileSync(join(dir, "run.json"), JSON.stringify({ info: {}, instances }));
  writeFileSync(
    join(dir, "eval", "r1", "m.r1.json"),
    JSON.stringify({
      resolved_ids: resolved,
      unresolved_ids: unresolved,
      empty_patch_ids: empty,
      error_ids: [],
      completed_ids: [...resolved, ...unresolved],
      submitted_ids: [...resolved, ...unresolved, ...empty],
    }),
  );
  return dir;
}

describe("compare: a batch's infrastructure failures (run.json infrastructure: true)", () => {
  it("are set apart with the run's reason, never counted as unresolved", () => {
    const ok = { exit_status: "Submitted" };
    const a = runFolder({ "o__r-1": ok, "o__r-2": ok, "o__r-3": ok }, ["o__r-1", "o__r-2"], ["o__r-3"], []);
    const b = runFolder(
      {
        "o__r-1": ok,
        "o__r-2": {
          exit_status: "EnvironmentError",
          exit_message: "could not open the environment: engine not answering\nmore",
          infra_retries: 2,
          infrastructure: true,
        },
        "o__r-3": { exit_status: "ModelError", exit_message: "HTTP 400", model_error: { kind: "fatal" } },
      },
      ["o__r-1"],
      [],
      ["o__r-2", "o__r-3"],
    );
    const run = loadRun(b);
    expect([...run.infrastructure]).toEqual([
      [
        "o__r-2",
        "infrastructure failure in the run (EnvironmentError, 3 tries): could not open the environment: engine not answering",
      ],
    ]);
    const r = compareRuns([loadRun(a), run], { missing: "exclude" });
    expect(Object.keys(r.set_apart.infrastructure[run.name] ?? {})).toEqual(["o__r-2"]);
    expect(r.instances).toBe(2);
  });
});
