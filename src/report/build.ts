import { CATEGORIES, type EndCategory, type EndGroup } from "./categories.js";
import type { AttemptsTotals, CollectedRun, InstanceFacts } from "./collect.js";
import { type Distribution, distribution } from "./distribution.js";
import {
  type Board,
  type LeaderboardSection,
  type LeaderboardSnapshot,
  leaderboardSection,
} from "./leaderboard.js";

/** A count out of a total. */
export interface Tally {
  instances: number;
  resolved: number;
  rate: number;
}

/** The measures whose spread the report gives. */
export const MEASURES = ["steps", "prompt_tokens", "completion_tokens", "seconds", "cost"] as const;
export type Measure = (typeof MEASURES)[number];

/**
 * `patchloop report --json` (contract; docs/report.md). Rates are fractions. `per_difficulty` is
 * null when the dataset has no difficulty label; `files` is null until the run is graded and the
 * dataset rows are at hand.
 */
export interface RunReport {
  format: "patchloop-report-1";
  dir: string;
  dataset: CollectedRun["dataset"];
  eval_summary: string | null;
  eval_scope: string | null;
  notes: string[];
  /** Instances the folder holds. */
  instances: number;
  graded: number;
  resolved: number;
  resolved_rate: number;
  per_repository: Array<Tally & { repository: string }>;
  per_difficulty: Array<Tally & { difficulty: string }> | null;
  /** Where each instance ended: every category with at least one instance, in the report's order. */
  outcomes: Array<{
    category: EndCategory;
    group: EndGroup;
    label: string;
    action: string;
    count: number;
    ids: string[];
  }>;
  files: FilesSection | null;
  usage: {
    all: Record<Measure, Distribution>;
    resolved: Record<Measure, Distribution>;
    /** Totals over every instance divided by the resolved count; null when nothing was resolved. */
    per_resolved: Record<Measure, number> | null;
  };
  attempts: AttemptsTotals | null;
  /** Where the run stands on the public leaderboard of its dataset (null: no snapshot given). */
  leaderboard: LeaderboardSection | null;
  per_instance: InstanceFacts[];
}

/** What `buildReport` places the run against: a leaderboard snapshot, and which board when the dataset does not say. */
export interface ReportOptions {
  snapshot?: LeaderboardSnapshot | null;
  board?: Board | null;
}

/** The patch's files beside the gold patch's, after grading (never shown to the model). */
export interface FilesSection {
  note: string;
  /** Graded instances with a non-empty patch and a known gold patch. */
  compared: number;
  /** The patch touched every file the gold patch touched. */
  all_gold_files: number;
  some_gold_files: number;
  no_gold_file: number;
  per_instance: Array<{
    instance_id: string;
    category: EndCategory;
    patch_files: string[];
    gold_files: string[];
  }>;
}

const FILES_NOTE =
  "For analysis after the run: the gold patch comes from the dataset row and is never shown to the model.";

function tally(list: InstanceFacts[]): Tally {
  const resolved = list.filter((i) => i.category === "resolved").length;
  return { instances: list.length, resolved, rate: list.length ? resolved / list.length : 0 };
}

function groupBy(list: InstanceFacts[], key: (i: InstanceFacts) => string): Map<string, InstanceFacts[]> {
  const out = new Map<string, InstanceFacts[]>();
  for (const i of list) out.set(key(i), [...(out.get(key(i)) ?? []), i]);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function measureOf(i: InstanceFacts, m: Measure): number | null {
  return m === "seconds" ? i.seconds : i[m];
}

function spread(list: InstanceFacts[]): Record<Measure, Distribution> {
  return Object.fromEntries(
    MEASURES.map((m) => [
      m,
      distribution(list.map((i) => measureOf(i, m)).filter((v): v is number => v !== null)),
    ]),
  ) as Record<Measure, Distribution>;
}

function filesSection(list: InstanceFacts[]): FilesSection | null {
  const compared = list.filter((i) => i.grade && i.gold_files && i.patch_files.length > 0);
  if (compared.length === 0) return null;
  const share = (i: InstanceFacts) => (i.gold_files ?? []).filter((f) => i.patch_files.includes(f)).length;
  return {
    note: FILES_NOTE,
    compared: compared.length,
    all_gold_files: compared.filter((i) => share(i) === (i.gold_files ?? []).length).length,
    some_gold_files: compared.filter((i) => share(i) > 0 && share(i) < (i.gold_files ?? []).length).length,
    no_gold_file: compared.filter((i) => share(i) === 0).length,
    per_instance: compared.map((i) => ({
      instance_id: i.instance_id,
      category: i.category,
      patch_files: i.patch_files,
      gold_files: i.gold_files ?? [],
    })),
  };
}

/** The report of a collected run (pure). */
export function buildReport(run: CollectedRun, options: ReportOptions = {}): RunReport {
  const list = run.instances;
  const all = tally(list);
  const graded = list.filter((i) => i.grade !== null).length;
  const withLabel = list.filter((i) => i.difficulty !== null);
  const resolvedList = list.filter((i) => i.category === "resolved");
  const usageAll = spread(list);
  return {
    format: "patchloop-report-1",
    dir: run.dir,
    dataset: run.dataset,
    eval_summary: run.eval_summary,
    eval_scope: run.eval_scope,
    notes: run.notes,
    instances: list.length,
    graded,
    resolved: all.resolved,
    resolved_rate: all.rate,
    per_repository: [...groupBy(list, (i) => i.repository)].map(([repository, l]) => ({
      repository,
      ...tally(l),
    })),
    per_difficulty: withLabel.length
      ? [...groupBy(withLabel, (i) => i.difficulty ?? "")].map(([difficulty, l]) => ({
          difficulty,
          ...tally(l),
        }))
      : null,
    outcomes: CATEGORIES.map((c) => {
      const ids = list.filter((i) => i.category === c.key).map((i) => i.instance_id);
      return { category: c.key, group: c.group, label: c.label, action: c.action, count: ids.length, ids };
    }).filter((o) => o.count > 0),
    files: filesSection(list),
    usage: {
      all: usageAll,
      resolved: spread(resolvedList),
      per_resolved: resolvedList.length
        ? (Object.fromEntries(MEASURES.map((m) => [m, usageAll[m].total / resolvedList.length])) as Record<
            Measure,
            number
          >)
        : null,
    },
    attempts: run.attempts,
    leaderboard: options.snapshot
      ? leaderboardSection(
          {
            dataset: run.dataset,
            instances: list.length,
            graded,
            resolved: all.resolved,
            attempts: run.attempts !== null,
          },
          options.snapshot,
          options.board ?? null,
        )
      : null,
    per_instance: list,
  };
}
