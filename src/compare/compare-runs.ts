import type { RunKind, RunVerdicts } from "./load-run.js";
import {
  BOOTSTRAP_DEFAULTS,
  type BootstrapOptions,
  exactMcNemarP,
  meanAndSd,
  pairedBootstrap,
} from "./stats.js";

/**
 * The comparison of runs (contract: `patchloop compare --json` prints a `CompareResult`; its field
 * names are documented in docs/compare.md). Rates are fractions (0.65), differences are B's rate
 * minus A's, intervals are `[low, high]` of that difference.
 */
export interface CompareResult {
  format: "patchloop-compare-1";
  runs: RunSummaryLine[];
  /** `exclude`: instances a run lacks or could not grade are set apart; `unresolved`: they count as unresolved. */
  missing: "exclude" | "unresolved";
  /** Instances every run graded (with `--missing unresolved`: every instance any run has). */
  instances: number;
  set_apart: SetApart;
  bootstrap: { resamples: number; seed: number; level: number };
  /** Every pair of runs, A before B in the order given. With two runs, the one pair. */
  pairs: PairComparison[];
  /** Three runs or more. */
  stability: Stability | null;
}

export interface RunSummaryLine {
  name: string;
  source: string;
  kind: RunKind;
  /** On the compared instances. */
  resolved: number;
  rate: number;
  notes: string[];
}

/** Instances left out of the tests (empty with `--missing unresolved`, where they count as unresolved). */
export interface SetApart {
  /** Per run name: instances another run has that this run lacks. */
  missing: Record<string, string[]>;
  /** Per run name: instance -> why its grading was an infrastructure failure. */
  infrastructure: Record<string, Record<string, string>>;
  /** Every instance left out, once. */
  total: number;
}

/** The test of one pair on a set of instances. */
export interface PairTest {
  instances: number;
  a_resolved: number;
  b_resolved: number;
  a_rate: number;
  b_rate: number;
  /** b_rate - a_rate. */
  difference: number;
  /** Resolved by A only (B lost them) and by B only (B gained them): the discordant pairs. */
  only_a: string[];
  only_b: string[];
  /** Exact two-sided McNemar p-value (binomial test of only_b against only_a at 1/2). */
  mcnemar_p: number;
  /** Paired bootstrap interval of `difference`. */
  difference_ci: [number, number];
}

export interface PairComparison extends PairTest {
  a: string;
  b: string;
  /** One plain sentence saying what the numbers mean. */
  sentence: string;
  per_repository: Array<PairTest & { repository: string }>;
}

export interface Stability {
  runs: number;
  always_resolved: number;
  never_resolved: number;
  unstable: number;
  unstable_ids: string[];
  mean_rate: number;
  /** Sample standard deviation of the runs' rates. */
  sd_rate: number;
  /** Resolved by more than half of the runs. */
  majority_rate: number;
  /** Resolved by at least one run. */
  any_rate: number;
}

/** How `compareRuns` treats instances a run lacks or could not grade, and the bootstrap's settings. */
export interface CompareOptions {
  missing: "exclude" | "unresolved";
  bootstrap?: BootstrapOptions;
}

/** The repository of a SWE-bench instance id (`django__django-11099` -> `django/django`). */
export function repositoryOf(id: string): string {
  const base = id.replace(/-\d+$/, "");
  const at = base.indexOf("__");
  return at > 0 ? `${base.slice(0, at)}/${base.slice(at + 2)}` : base;
}

function known(run: RunVerdicts, everyone: Set<string>): Set<string> {
  if (run.resolvedOnly) return everyone;
  return new Set([...run.resolved, ...run.unresolved, ...run.infrastructure.keys()]);
}

function testPair(ids: string[], a: RunVerdicts, b: RunVerdicts, options: BootstrapOptions): PairTest {
  const va = ids.map((id) => a.resolved.has(id));
  const vb = ids.map((id) => b.resolved.has(id));
  const aRes = va.filter(Boolean).length;
  const bRes = vb.filter(Boolean).length;
  const onlyA = ids.filter((_, i) => va[i] && !vb[i]);
  const onlyB = ids.filter((_, i) => vb[i] && !va[i]);
  const n = ids.length;
  return {
    instances: n,
    a_resolved: aRes,
    b_resolved: bRes,
    a_rate: n ? aRes / n : 0,
    b_rate: n ? bRes / n : 0,
    difference: n ? (bRes - aRes) / n : 0,
    only_a: onlyA,
    only_b: onlyB,
    mcnemar_p: exactMcNemarP(onlyA.length, onlyB.length),
    difference_ci: pairedBootstrap(va, vb, options),
  };
}

/** p as people write it: `< 0.001`, else two significant digits. */
export function formatP(p: number): string {
  if (p < 0.001) return "< 0.001";
  return `= ${Number(p.toPrecision(2))}`;
}

function points(x: number): string {
  const v = (100 * x).toFixed(1);
  return x > 0 ? `+${v}` : v;
}

/** The one plain sentence of a pair, at the 0.05 level; the interval is of the leading run's advantage. */
export function pairSentence(a: string, b: string, t: PairTest, level: number): string {
  const diff = t.b_resolved - t.a_resolved;
  // The interval of the leader's advantage: B - A when B is ahead, A - B when A is.
  const [lo, hi] = diff >= 0 ? t.difference_ci : [-t.difference_ci[1], -t.difference_ci[0]];
  const ci = `${Math.round(level * 100)}% interval of the difference ${points(lo)} to ${points(hi)} points`;
  if (t.instances === 0) return `${a} and ${b} have no instance that both graded: nothing to compare.`;
  if (diff === 0) {
    const flips = t.only_a.length;
    return flips === 0
      ? `${a} and ${b} resolve the same ${t.a_resolved} of ${t.instances} instances: no difference.`
      : `${a} and ${b} both resolve ${t.a_resolved} of ${t.instances}, with ${flips} flips each way; p = 1: no difference in rate.`;
  }
  const [ahead, behind] = diff > 0 ? [b, a] : [a, b];
  const verdict =
    t.mcnemar_p < 0.05
      ? "unlikely to be run-to-run noise at 0.05"
      : "not distinguishable from run-to-run noise at 0.05";
  return `${ahead} resolves ${Math.abs(diff)} more of ${t.instances} than ${behind} (${Math.max(t.a_resolved, t.b_resolved)} vs ${Math.min(t.a_resolved, t.b_resolved)}); p ${formatP(t.mcnemar_p)}, ${ci}: ${verdict}.`;
}

function comparePair(
  ids: string[],
  a: RunVerdicts,
  b: RunVerdicts,
  options: BootstrapOptions,
): PairComparison {
  const whole = testPair(ids, a, b, options);
  const byRepo = new Map<string, string[]>();
  for (const id of ids) {
    const repo = repositoryOf(id);
    byRepo.set(repo, [...(byRepo.get(repo) ?? []), id]);
  }
  return {
    a: a.name,
    b: b.name,
    ...whole,
    sentence: pairSentence(a.name, b.name, whole, options.level),
    per_repository: [...byRepo.keys()]
      .sort()
      .map((repository) => ({ repository, ...testPair(byRepo.get(repository) ?? [], a, b, options) })),
  };
}

function stabilityOf(ids: string[], runs: RunVerdicts[]): Stability {
  const counts = ids.map((id) => runs.filter((r) => r.resolved.has(id)).length);
  const n = ids.length || 1;
  const rates = runs.map((r) => ids.filter((id) => r.resolved.has(id)).length / n);
  const { mean, sd } = meanAndSd(rates);
  const unstable = ids.filter((_, i) => counts[i] > 0 && counts[i] < runs.length);
  return {
    runs: runs.length,
    always_resolved: counts.filter((c) => c === runs.length).length,
    never_resolved: counts.filter((c) => c === 0).length,
    unstable: unstable.length,
    unstable_ids: unstable,
    mean_rate: mean,
    sd_rate: sd,
    majority_rate: counts.filter((c) => c > runs.length / 2).length / n,
    any_rate: counts.filter((c) => c > 0).length / n,
  };
}

/**
 * Compares two or more runs on the instances they share. Instances a run lacks, or whose grading
 * was an infrastructure failure, are set apart and left out of every test; with
 * `missing: "unresolved"` they count as unresolved instead (every instance any run has).
 */
export function compareRuns(runs: RunVerdicts[], options: CompareOptions): CompareResult {
  if (runs.length < 2) throw new Error(`compare needs two runs or more, got ${runs.length}`);
  const bootstrap = options.bootstrap ?? BOOTSTRAP_DEFAULTS;
  const everyone = new Set<string>();
  for (const r of runs) if (!r.resolvedOnly) for (const id of known(r, everyone)) everyone.add(id);
  if (everyone.size === 0) for (const r of runs) for (const id of r.resolved) everyone.add(id);
  const all = [...everyone].sort();
  const setApart: SetApart = { missing: {}, infrastructure: {}, total: 0 };
  let ids = all;
  if (options.missing === "exclude") {
    const left = new Set<string>();
    for (const r of runs) {
      const has = known(r, everyone);
      const lacks = all.filter((id) => !has.has(id));
      const infra = all.filter((id) => r.infrastructure.has(id));
      if (lacks.length) setApart.missing[r.name] = lacks;
      if (infra.length)
        setApart.infrastructure[r.name] = Object.fromEntries(
          infra.map((id) => [id, r.infrastructure.get(id) ?? ""]),
        );
      for (const id of [...lacks, ...infra]) left.add(id);
    }
    setApart.total = left.size;
    ids = all.filter((id) => !left.has(id));
  }
  const pairs: PairComparison[] = [];
  for (let i = 0; i < runs.length; i++)
    for (let j = i + 1; j < runs.length; j++) pairs.push(comparePair(ids, runs[i], runs[j], bootstrap));
  return {
    format: "patchloop-compare-1",
    runs: runs.map((r) => {
      const resolved = ids.filter((id) => r.resolved.has(id)).length;
      return {
        name: r.name,
        source: r.source,
        kind: r.kind,
        resolved,
        rate: ids.length ? resolved / ids.length : 0,
        notes: r.notes,
      };
    }),
    missing: options.missing,
    instances: ids.length,
    set_apart: setApart,
    bootstrap: { ...bootstrap },
    pairs,
    stability: runs.length >= 3 ? stabilityOf(ids, runs) : null,
  };
}
