import type { LeaderboardSection } from "./leaderboard.js";

/** The leaderboard section's sentences (Markdown and `inspect` alike). */
export function leaderboardLines(l: LeaderboardSection): string[] {
  const head = `Snapshot of the public SWE-bench leaderboards of ${l.snapshot_date} (${l.source}).`;
  const s = l.standing;
  if (!s || !l.name) return [head, ...l.notes.map((n) => `No standing: ${n}.`)];
  const entry = (e: { name: string; resolved: number; date: string }) =>
    `${e.name} (${e.resolved.toFixed(2)}%, ${e.date})`;
  const between = [
    s.above ? `below ${entry(s.above)}` : "above every entry",
    ...(s.below ? [`${s.below.resolved === s.percent ? "level with" : "above"} ${entry(s.below)}`] : []),
  ].join(" and ");
  return [
    head,
    `On ${l.name} this run resolves ${s.resolved} of ${s.split_instances} (${s.percent.toFixed(2)}%): rank ${s.rank} ` +
      `of ${s.entries + 1} with the snapshot's ${s.entries} entries, ${between}. ` +
      `Top: ${entry(s.top)}; median entry ${s.median.toFixed(2)}%. ` +
      `Among the ${s.open_model.entries} entries with an open model: rank ${s.open_model.rank} of ${s.open_model.entries + 1}.`,
    ...l.notes.map((n) => `Note: ${n}.`),
  ];
}
