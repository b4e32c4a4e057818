import type { SwebenchInstance } from "../dataset/types.js";
import { BatchInputError } from "./errors.js";

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
