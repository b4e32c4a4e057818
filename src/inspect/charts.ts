import type { BarDatum, InstanceRow, RunCharts } from "./view/view-model.js";

/** `owner/name` of a SWE-bench style id (`django__django-11099` → `django/django`), else `(other)`. */
export function repoOf(instanceId: string): string {
  const m = /^(.+?)__(.+)-\d+$/.exec(instanceId);
  return m ? `${m[1]}/${m[2]}` : "(other)";
}

function resolvedByRepo(rows: InstanceRow[]): BarDatum[] {
  const groups = new Map<string, { resolved: number; total: number }>();
  for (const row of rows) {
    if (row.resolved === null) continue;
    const g = groups.get(row.repo) ?? { resolved: 0, total: 0 };
    g.total += 1;
    if (row.resolved) g.resolved += 1;
    groups.set(row.repo, g);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([repo, g]) => ({
      label: repo,
      value: Math.round((1000 * g.resolved) / g.total) / 10,
      caption: `${g.resolved}/${g.total}`,
    }));
}

/** Bins of equal width covering min..max steps: width 1 up to 10 distinct values, else about 10 bins. */
function stepsHistogram(rows: InstanceRow[]): BarDatum[] {
  const steps = rows.map((r) => r.steps).filter((s): s is number => s !== null);
  if (steps.length === 0) return [];
  const min = Math.min(...steps);
  const max = Math.max(...steps);
  const width = max - min < 10 ? 1 : Math.ceil((max - min + 1) / 10);
  const start = Math.floor(min / width) * width;
  const bins: BarDatum[] = [];
  for (let lo = start; lo <= max; lo += width) {
    const hi = lo + width - 1;
    const count = steps.filter((s) => s >= lo && s <= hi).length;
    bins.push({ label: width === 1 ? String(lo) : `${lo}–${hi}`, value: count, caption: String(count) });
  }
  return bins;
}

function exitStatuses(rows: InstanceRow[]): BarDatum[] {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = row.exitStatus ?? "(none)";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([label, n]) => ({ label, value: n, caption: String(n) }));
}

/** The overview's three charts, computed from its rows. */
export function computeCharts(rows: InstanceRow[]): RunCharts {
  return {
    resolvedByRepo: resolvedByRepo(rows),
    stepsHistogram: stepsHistogram(rows),
    exitStatuses: exitStatuses(rows),
  };
}
