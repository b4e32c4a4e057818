import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { packageRoot } from "../package-root.js";

/** The public leaderboards a snapshot holds (SWE-bench's test splits). */
export const BOARDS = ["lite", "verified"] as const;
export type Board = (typeof BOARDS)[number];

const entrySchema = z
  .object({
    name: z.string(),
    /** Percent of the split's instances resolved, as the leaderboard publishes it. */
    resolved: z.number().min(0).max(100),
    date: z.string(),
    open_model: z.boolean(),
    open_system: z.boolean(),
    checked: z.boolean(),
    attempts: z.string().nullable(),
    warning: z.string().optional(),
  })
  .strict();

const boardSchema = z
  .object({ name: z.string(), instances: z.number().int().positive(), entries: z.array(entrySchema).min(1) })
  .strict();

const snapshotSchema = z
  .object({
    format: z.literal("patchloop-leaderboards-1"),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    source: z.string(),
    leaderboards: z
      .object({
        lite: boardSchema,
        verified: boardSchema,
      })
      .strict(),
  })
  .strict();

export type LeaderboardEntry = z.infer<typeof entrySchema>;
export type LeaderboardSnapshot = z.infer<typeof snapshotSchema>;

/** The snapshot shipped with patchloop (assets/leaderboards/README.md says where it comes from). */
export const SNAPSHOT_FILE = join("assets", "leaderboards", "swe-bench-2025-12-10.json");

/** Reads and checks a leaderboard snapshot (default: the shipped one). */
export function readLeaderboardSnapshot(path = join(packageRoot(), SNAPSHOT_FILE)): LeaderboardSnapshot {
  const parsed = snapshotSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new Error(
      `${path}: not a leaderboard snapshot (${parsed.error.issues[0]?.message ?? "bad shape"})`,
    );
  return parsed.data;
}

/** An entry as the report names it. */
export interface Neighbour {
  name: string;
  resolved: number;
  date: string;
}

/** Where a run stands on one leaderboard (`report --json`'s `leaderboard.standing`). */
export interface Standing {
  /** The split's size: the leaderboard's denominator. */
  split_instances: number;
  /** Instances the run holds (those it did not take count as unresolved, as the leaderboard counts them). */
  run_instances: number;
  resolved: number;
  /** Percent of the split, rounded to 2 decimals as the leaderboard publishes. */
  percent: number;
  /** 1 + the entries with a higher percentage (ties share a rank). */
  rank: number;
  /** The snapshot's entries; the run would be one more. */
  entries: number;
  above: Neighbour | null;
  below: Neighbour | null;
  top: Neighbour;
  /** The median entry's percentage. */
  median: number;
  /** The same among the entries whose model is open (weights published). */
  open_model: { rank: number; entries: number };
}

/** `report --json`'s `leaderboard` (contract; docs/report.md). */
export interface LeaderboardSection {
  snapshot_date: string;
  source: string;
  /** The leaderboard the run is placed on; null when it cannot be (`note` says why). */
  board: Board | null;
  name: string | null;
  standing: Standing | null;
  /** Why there is no standing, or what to keep in mind reading it. */
  notes: string[];
}

/**
 * Which leaderboard a dataset's name belongs to: `lite` / `verified` (patchloop's names) or the
 * Hugging Face names, test split only; null for anything else (a file, another dataset).
 */
export function boardOfDataset(name: string | null, split: string | null): Board | null {
  if (!name || (split !== null && split !== "test")) return null;
  const n = name.toLowerCase();
  if (n === "lite" || /(^|\/)swe-bench_lite$/.test(n)) return "lite";
  if (n === "verified" || /(^|\/)swe-bench_verified$/.test(n)) return "verified";
  return null;
}

const percentOf = (resolved: number, of: number) => Math.round((10000 * resolved) / of) / 100;
const asNeighbour = (e: LeaderboardEntry): Neighbour => ({
  name: e.name,
  resolved: e.resolved,
  date: e.date,
});

/** Rank and neighbours of `percent` among entries (sorted best first). */
function place(percent: number, entries: LeaderboardEntry[]): Pick<Standing, "rank" | "above" | "below"> {
  const higher = entries.filter((e) => e.resolved > percent);
  const rest = entries.filter((e) => e.resolved <= percent);
  return {
    rank: higher.length + 1,
    above: higher.length ? asNeighbour(higher[higher.length - 1]) : null,
    below: rest.length ? asNeighbour(rest[0]) : null,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : Math.round(((s[m - 1] + s[m]) / 2) * 100) / 100;
}

/** What `leaderboardSection` needs of a run. */
export interface RunTotals {
  dataset: { name: string | null; split: string | null };
  instances: number;
  graded: number;
  resolved: number;
  /** Attempts per instance above 1 (the leaderboard tags entries `Attempts - 1` or `2+`). */
  attempts: boolean;
}

/**
 * Where a run stands on the public leaderboard of its dataset (pure). `board` names the leaderboard
 * when the dataset's name does not (a file of Lite or Verified rows: `report --leaderboard`).
 */
export function leaderboardSection(
  run: RunTotals,
  snapshot: LeaderboardSnapshot,
  board: Board | null = null,
): LeaderboardSection {
  const chosen = board ?? boardOfDataset(run.dataset.name, run.dataset.split);
  const base = { snapshot_date: snapshot.date, source: snapshot.source };
  const dataset = run.dataset.name
    ? `a run on ${run.dataset.name}${run.dataset.split ? ` (${run.dataset.split})` : ""}`
    : "run.json names no dataset";
  if (!chosen)
    return {
      ...base,
      board: null,
      name: null,
      standing: null,
      notes: [
        `${dataset}: the snapshot has the SWE-bench Lite and Verified test leaderboards only; ` +
          "if its rows are one of those splits, say which with --leaderboard lite|verified",
      ],
    };
  const lb = snapshot.leaderboards[chosen];
  const named = { ...base, board: chosen, name: lb.name };
  if (run.graded === 0)
    return { ...named, standing: null, notes: ["not graded: grade it with `patchloop eval DIR` first"] };
  if (run.instances > lb.instances)
    return {
      ...named,
      standing: null,
      notes: [
        `the run holds ${run.instances} instances, more than the ${lb.instances} of ${lb.name}: not that split`,
      ],
    };
  const percent = percentOf(run.resolved, lb.instances);
  const entries = [...lb.entries].sort((a, b) => b.resolved - a.resolved);
  const open = entries.filter((e) => e.open_model);
  const notes: string[] = [];
  if (run.instances < lb.instances)
    notes.push(
      `the run took ${run.instances} of the ${lb.instances} instances; the leaderboard divides by all ` +
        `${lb.instances}, so the ${lb.instances - run.instances} it did not take count as unresolved here ` +
        `(its rate on the instances it took, ${percentOf(run.resolved, run.instances)}%, is not comparable)`,
    );
  if (run.graded < run.instances)
    notes.push(`${run.instances - run.graded} of its instances are not graded and count as unresolved`);
  if (run.attempts)
    notes.push("the run made several attempts per instance: compare it with entries tagged `Attempts 2+`");
  return {
    ...named,
    standing: {
      split_instances: lb.instances,
      run_instances: run.instances,
      resolved: run.resolved,
      percent,
      ...place(percent, entries),
      entries: entries.length,
      top: asNeighbour(entries[0]),
      median: median(entries.map((e) => e.resolved)),
      open_model: { rank: place(percent, open).rank, entries: open.length },
    },
    notes,
  };
}
