import { describe, expect, it } from "vitest";
import type { ExitStatus } from "../../src/agent/trajectory-types.js";
import { MAX_OUTAGE_RUNS, type PlanInput, planRun } from "../../src/batch/run-plan.js";
import type { InstanceRecord } from "../../src/batch/run-record.js";
import { unitKey, type WorkUnit } from "../../src/batch/types.js";
import type { SwebenchInstance } from "../../src/dataset/types.js";
import type { PriorState } from "../../src/run-folder/resume.js";

/** A row with nothing but its id (planning reads no other field). */
const row = (id: string): SwebenchInstance =>
  ({
    repo: "o/r",
    instance_id: id,
    base_commit: "0",
    patch: "",
    test_patch: "",
    problem_statement: "",
    hints_text: "",
    created_at: "",
    version: "",
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    environment_setup_commit: "",
  }) satisfies SwebenchInstance;

/** A unit's prior state: never ran (null), or ended with `status` after `calls` calls costing `cost`. */
const prior = (status: ExitStatus | null, calls = 0, cost = 0, patch = ""): PriorState => ({
  status,
  submission: patch,
  stats: { api_calls: calls, prompt_tokens: 0, completion_tokens: 0, cost },
});
const outage = (calls: number): PriorState => ({
  ...prior("ModelError", calls, 0),
  modelError: { kind: "retries_exhausted", message: "503 five times" } as PriorState["modelError"],
});

const policy = { cost_limit: 0, agree: 0, replace_failed: 0 };

/** The input for one attempt per instance: rows a..e with the given priors and run.json records. */
function single(priors: Record<string, PriorState>, records: Record<string, InstanceRecord> = {}): PlanInput {
  const instances = Object.keys(priors).map(row);
  const units: WorkUnit[] = instances.map((r) => ({ row: r }));
  return {
    instances,
    units,
    priors: new Map(Object.entries(priors)),
    records,
    attempts: 1,
    policy,
    redo: false,
  };
}

const ids = (units: WorkUnit[]) => units.map((u) => unitKey(u.row.instance_id, u.attempt));

describe("planRun: the run folder's plan, pure", () => {
  it("keeps final statuses, runs the never-run first and the failed after them, and sums the spend", () => {
    const input = single(
      {
        a: prior("Submitted", 5, 0.5),
        b: prior("EnvironmentError", 1, 0.1),
        c: prior(null),
        d: prior("Interrupted", 2, 0.2),
        e: prior(null),
      },
      {
        // b ran twice before: its earlier spend counts too
        b: { exit_status: "EnvironmentError", api_calls: 1, cost: 0.1, earlier_calls: 3, earlier_cost: 0.3 },
      },
    );
    const plan = planRun(input);
    expect(ids(plan.todo)).toEqual(["c", "e", "b", "d"]);
    expect(plan.skipped).toEqual(["a"]);
    expect(plan.spent.api_calls).toBe(5 + 1 + 2 + 3);
    expect(plan.spent.cost).toBeCloseTo(0.5 + 0.1 + 0.2 + 0.3, 10);
    expect(plan.keptAttempts).toEqual({});
    expect(plan.notes).toEqual([]);
    expect(plan.perInstance.size).toBe(0);
  });

  it("counts what run.json records of units whose trajectory it did not read", () => {
    const plan = planRun(
      single({ a: prior(null) }, { z: { exit_status: "Submitted", api_calls: 7, cost: 0.7 } }),
    );
    expect(plan.spent).toEqual({ api_calls: 7, cost: 0.7 });
  });

  it(`makes a ModelError final after ${MAX_OUTAGE_RUNS} runs in a row of a failing server, and says so`, () => {
    const records: Record<string, InstanceRecord> = {
      a: { exit_status: "ModelError", api_calls: 1, cost: 0, model_error_runs: MAX_OUTAGE_RUNS },
      b: { exit_status: "ModelError", api_calls: 1, cost: 0, model_error_runs: MAX_OUTAGE_RUNS - 1 },
    };
    const plan = planRun(single({ a: outage(1), b: outage(1) }, records));
    expect(ids(plan.todo)).toEqual(["b"]);
    expect(plan.skipped).toEqual(["a"]);
    expect(plan.notes).toEqual([
      `a: the model server failed on it in ${MAX_OUTAGE_RUNS} runs in a row; its ModelError is now final (--redo-existing runs it again)`,
    ]);
    // --redo-existing runs everything, the final ModelError included
    expect(ids(planRun({ ...single({ a: outage(1), b: outage(1) }, records), redo: true }).todo)).toEqual([
      "a",
      "b",
    ]);
  });

  it("with attempts: keeps an instance's attempts together, and a failure that a replacement covers is final", () => {
    const r = row("a");
    const units: WorkUnit[] = [1, 2, 3].map((k) => ({ row: r, attempt: k }));
    const priors = new Map<string, PriorState>([
      [unitKey("a", 1), prior("Submitted", 3, 0.3, "diff --git a/x b/x\n")],
      [unitKey("a", 2), prior("EnvironmentError", 0, 0)],
      [unitKey("a", 3), prior(null)],
    ]);
    const records: Record<string, InstanceRecord> = {
      "a/attempt-2": { exit_status: "EnvironmentError", api_calls: 0, cost: 0, replaced_by: 4 },
    };
    const plan = planRun({
      instances: [r],
      units,
      priors,
      records,
      attempts: 3,
      policy: { ...policy, replace_failed: 1 },
      redo: false,
    });
    // attempt 2 is final (attempt 4 replaces it); 3 never ran; 4 is a replacement not started yet
    expect(ids(plan.todo)).toEqual(["a/attempt-3", "a/attempt-4"]);
    expect(plan.keptAttempts).toEqual({ "a/attempt-1": "Submitted", "a/attempt-2": "EnvironmentError" });
    expect(plan.skipped).toEqual([]);
    expect([...plan.perInstance.keys()]).toEqual(["a"]);
  });

  it("reads nothing and changes nothing it is given: the same input plans the same twice", () => {
    const input = single({ a: prior("Submitted", 1, 0.1), b: prior(null) });
    const copy = structuredClone({ ...input, priors: [...input.priors] });
    const first = planRun(input);
    const second = planRun(input);
    expect(ids(second.todo)).toEqual(ids(first.todo));
    expect(second.spent).toEqual(first.spent);
    expect({ ...input, priors: [...input.priors] }).toEqual(copy);
  });
});
