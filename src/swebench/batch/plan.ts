import type { ExitStatus } from "../../agent/trajectory-types.js";
import type { SwebenchInstance } from "../types.js";
import { BatchInputError } from "./errors.js";
import { needsRun, type PriorState, readPriorState } from "./resume.js";

/** Which selected instances run now and what earlier runs left. */
export interface BatchPlan {
  todo: SwebenchInstance[];
  /** Instances with a final exit status from an earlier run, with that status. */
  skipped: Array<{ row: SwebenchInstance; prior: PriorState & { status: ExitStatus } }>;
  /** Every selected instance's earlier state, by id. */
  priors: Map<string, PriorState>;
}

/** Throws `BatchInputError` when ids repeat or cannot name a folder (they become `DIR/<id>/`). */
export function checkInstanceIds(rows: SwebenchInstance[]): void {
  const seen = new Set<string>();
  for (const row of rows) {
    const id = row.instance_id;
    if (typeof id !== "string" || id === "" || id === "." || id === ".." || /[/\\\0]/.test(id)) {
      throw new BatchInputError(
        `instance id ${JSON.stringify(id)} cannot name a folder in the run directory (no /, \\ or empty ids)`,
      );
    }
    if (seen.has(id))
      throw new BatchInputError(
        `instance id ${id} appears twice in the selection; each instance may run once`,
      );
    seen.add(id);
  }
}

/** Reads every selected instance's trajectory (a few at a time) and splits the selection. */
export async function planBatch(
  rows: SwebenchInstance[],
  outputDir: string,
  redoExisting: boolean,
): Promise<BatchPlan> {
  checkInstanceIds(rows);
  const priors = new Map<string, PriorState>();
  let next = 0;
  const reader = async () => {
    while (next < rows.length) {
      const id = rows[next++].instance_id;
      priors.set(id, await readPriorState(outputDir, id));
    }
  };
  await Promise.all(Array.from({ length: 16 }, reader));
  const plan: BatchPlan = { todo: [], skipped: [], priors };
  for (const row of rows) {
    const prior = priors.get(row.instance_id) as PriorState;
    if (needsRun(prior, redoExisting)) plan.todo.push(row);
    else plan.skipped.push({ row, prior: prior as PriorState & { status: ExitStatus } });
  }
  return plan;
}
