import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunVerdicts } from "../../src/compare/load-run.js";
import { FIXTURES } from "../support/data.js";

/** The vendored published verdicts (test/fixtures/published-runs/README.md): run name -> id -> resolved. */
export function publishedVerdicts(): Map<string, Map<string, boolean>> {
  const runs = new Map<string, Map<string, boolean>>();
  for (const file of ["mini-swe-agent-verified.tsv", "sonnet-4.first-100.tsv"]) {
    const [head, ...rows] = readFileSync(join(FIXTURES, "published-runs", file), "utf8")
      .trim()
      .split("\n");
    const names = head.split("\t").slice(1);
    for (const n of names) runs.set(n, new Map());
    for (const row of rows) {
      const [id, ...bits] = row.split("\t");
      for (const [i, b] of bits.entries()) runs.get(names[i])?.set(id, b === "1");
    }
  }
  return runs;
}

/** A run as `compare` reads it, from verdicts (optionally only the given ids). */
export function runOf(name: string, verdicts: Map<string, boolean>, only?: Set<string>): RunVerdicts {
  const ids = [...verdicts.keys()].filter((id) => !only || only.has(id));
  return {
    name,
    source: `published:${name}`,
    kind: "verdict-map",
    resolved: new Set(ids.filter((id) => verdicts.get(id))),
    unresolved: new Set(ids.filter((id) => !verdicts.get(id))),
    infrastructure: new Map(),
    resolvedOnly: false,
    notes: [],
  };
}

/** The harness's run summary (`<model>.<run_id>.json`) of verdicts, as SWE-bench writes it. */
export function harnessSummary(verdicts: Map<string, boolean>, extra: Record<string, string[]> = {}): object {
  const ids = [...verdicts.keys()].sort();
  const resolved = ids.filter((id) => verdicts.get(id));
  const unresolved = ids.filter((id) => !verdicts.get(id));
  return {
    total_instances: ids.length,
    submitted_instances: ids.length,
    completed_instances: ids.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: 0,
    error_instances: 0,
    completed_ids: ids,
    incomplete_ids: [],
    empty_patch_ids: [],
    submitted_ids: ids,
    resolved_ids: resolved,
    unresolved_ids: unresolved,
    error_ids: [],
    schema_version: 2,
    ...extra,
  };
}
