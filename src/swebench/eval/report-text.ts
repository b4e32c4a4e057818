import type { Flips } from "./compare.js";
import type { RunSummary } from "./summary.js";

function pct(n: number, d: number): string {
  return d === 0 ? "0.0%" : `${((100 * n) / d).toFixed(1)}%`;
}

function list(title: string, ids: string[], detail?: Record<string, string>, indent = ""): string[] {
  if (ids.length === 0) return [];
  const lines = [`${indent}${title} (${ids.length}):`];
  for (const id of ids) {
    const why = detail?.[id]?.split("\n")[0];
    lines.push(why ? `${indent}  ${id}: ${why}` : `${indent}  ${id}`);
  }
  return lines;
}

/**
 * The printed end of `patchloop eval`: resolved x/y (%) over the dataset (and over the submitted
 * instances when fewer), a per-repository table, then empty patches, patches that failed to
 * apply, timeouts and infrastructure errors (kept apart from unresolved), unresolved instances,
 * and the flips against `--compare`.
 */
export function formatRunReport(s: RunSummary, flips?: Flips & { against: string }): string {
  const out: string[] = [];
  out.push(
    `Resolved ${s.resolved_instances}/${s.total_instances} (${pct(s.resolved_instances, s.total_instances)})`,
  );
  const submitted = s.submitted_ids.length;
  if (submitted !== s.total_instances) {
    out.push(
      `Resolved ${s.resolved_instances}/${submitted} of the instances with a prediction (${pct(s.resolved_instances, submitted)})`,
    );
  }
  out.push(
    `completed ${s.completed_instances}, unresolved ${s.unresolved_instances}, empty patches ${s.empty_patch_instances}, ` +
      `errors ${s.error_instances} (patch did not apply ${s.patchloop.patch_apply_failed_ids.length}, ` +
      `timed out ${s.patchloop.timeout_ids.length}, infrastructure ${s.patchloop.infrastructure_error_ids.length})`,
  );
  const repos = Object.entries(s.patchloop.per_repo);
  if (repos.length > 0) {
    const width = Math.max(10, ...repos.map(([r]) => r.length));
    out.push("", `${"repository".padEnd(width)}  resolved  total    rate`);
    for (const [repo, t] of repos) {
      out.push(
        `${repo.padEnd(width)}  ${String(t.resolved).padStart(8)}  ${String(t.total).padStart(5)}  ${pct(t.resolved, t.total).padStart(6)}`,
      );
    }
  }
  const e = s.patchloop.errors;
  for (const block of [
    list("Empty patches", s.empty_patch_ids),
    list("Patches that did not apply", s.patchloop.patch_apply_failed_ids, e),
    list("Timed out", s.patchloop.timeout_ids, e),
    list("Infrastructure errors (not counted as unresolved)", s.patchloop.infrastructure_error_ids, e),
    list("Unresolved", s.unresolved_ids, Object.fromEntries(Object.entries(s.patchloop.resolutions))),
  ]) {
    if (block.length > 0) out.push("", ...block);
  }
  if (flips) {
    out.push("", `Compared with ${flips.against} (${flips.common} instances in both runs):`);
    out.push(
      ...(flips.nowResolved.length
        ? list("Now resolved", flips.nowResolved, undefined, "  ")
        : ["  Now resolved: none"]),
    );
    out.push(
      ...(flips.nowUnresolved.length
        ? list("No longer resolved", flips.nowUnresolved, undefined, "  ")
        : ["  No longer resolved: none"]),
    );
  }
  return `${out.join("\n")}\n`;
}
