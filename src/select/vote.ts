/**
 * Step 4 of docs/selection.md, without the model: which candidates survive the tests, how they
 * group, and which group the vote gives (or which groups tie). Pure: the judge is asked by the
 * caller (select-instance.ts) between `vote` and `breakTie`.
 */

/** What the vote knows of one candidate. */
export interface VoteInput {
  /** The candidate's position in input order. */
  index: number;
  /** Normalized to a patch (not empty, not tests only). */
  usable: boolean;
  /** false: the patch does not apply; null: not tried. */
  applies: boolean | null;
  textKey?: string;
  /** Syntax-tree key of the patched files; absent where some file does not parse or was not read. */
  astKey?: string;
  /** Tests that passed at the base commit and fail with it (Infinity: the run hung); null: not tested. */
  broke: number | null;
  /** Of those, the ones named after a function it changes and the issue names (issue-functions.ts); they order equals only. */
  expectedBroke?: number;
  /** Reproduction tests it passes; null: none kept. */
  reproPassed: number | null;
  /** Whether it changes what one of the issue's examples prints at the base commit; null: not compared. */
  examplesChanged: boolean | null;
  /** Whether, in an example it changes, it prints a line the issue states (examples.ts); null: not compared. */
  examplesStated?: boolean | null;
  /** Same value: same test behaviour (set when a reproduction test was kept or it changes an example's output; select-instance.ts). */
  behaviour?: string;
  /** Lines it changes outside the tests. */
  size: number;
  /** The files it changes outside the tests (absent: not known). */
  files?: string[];
}

/** A group of equivalent candidates. */
export interface VoteGroup {
  /** 1-based, by the earliest member. */
  id: number;
  members: number[];
  /** The member that stands for the group: fewest changed lines, then the earliest. */
  representative: number;
  /** The representative's size. */
  size: number;
  /** Usable candidates (any, tested or not, surviving or not) that change one of the files the representative changes. */
  sharedFiles: number;
}

export interface VoteResult {
  /** Candidates that passed every filter, in input order. */
  survivors: number[];
  /** Group id of each grouped candidate (every usable candidate that applied or was not tried). */
  groupOf: Map<number, number>;
  groups: VoteGroup[];
  /** The groups of the largest size among the survivors (one: the vote decided). Empty: nothing survived. */
  top: VoteGroup[];
  /** How the filters went, in words. */
  steps: string[];
}

class UnionFind {
  private readonly parent = new Map<number, number>();
  find(x: number): number {
    let p = this.parent.get(x) ?? x;
    if (p !== x) {
      p = this.find(p);
      this.parent.set(x, p);
    }
    return p;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(Math.max(ra, rb), Math.min(ra, rb));
  }
}

/** Groups candidates that share a text key, a syntax-tree key or a test behaviour. */
function groupsOf(inputs: VoteInput[], usable: VoteInput[]): VoteGroup[] {
  const uf = new UnionFind();
  const first = new Map<string, number>();
  for (const c of inputs) {
    for (const key of [
      c.textKey && `t:${c.textKey}`,
      c.astKey && `a:${c.astKey}`,
      c.behaviour && `b:${c.behaviour}`,
    ]) {
      if (!key) continue;
      const seen = first.get(key);
      if (seen === undefined) first.set(key, c.index);
      else uf.union(seen, c.index);
    }
  }
  const byRoot = new Map<number, VoteInput[]>();
  for (const c of inputs) {
    const r = uf.find(c.index);
    byRoot.set(r, [...(byRoot.get(r) ?? []), c]);
  }
  return [...byRoot.values()]
    .sort((a, b) => a[0].index - b[0].index)
    .map((members, i) => {
      const rep = [...members].sort((a, b) => a.size - b.size || a.index - b.index)[0];
      const mine = new Set(rep.files ?? []);
      const sharedFiles = usable.filter((c) => (c.files ?? []).some((f) => mine.has(f))).length;
      return {
        id: i + 1,
        members: members.map((m) => m.index),
        representative: rep.index,
        size: rep.size,
        sharedFiles,
      };
    });
}

/** Keeps the candidates with the best value of `score` (lower is better) among those that have one. */
function bestTier(cands: VoteInput[], score: (c: VoteInput) => number | null): VoteInput[] {
  const known = cands.filter((c) => score(c) !== null);
  if (known.length === 0) return cands;
  const best = Math.min(...known.map((c) => score(c) as number));
  return known.filter((c) => score(c) === best);
}

/**
 * Runs the filters and the vote: usable candidates that apply are grouped; of those, the ones that
 * break the fewest passing tests survive (untested ones only when none was tested), then those
 * that pass the most reproduction tests, then those that change what one of the issue's examples
 * prints (when some do and others do not), then, of those, the ones that print a value the issue
 * states (when some do and others do not); the largest groups of survivors are `top`.
 */
export function vote(inputs: VoteInput[]): VoteResult {
  const steps: string[] = [];
  const grouped = inputs.filter((c) => c.usable && c.applies !== false);
  const groups = groupsOf(
    grouped,
    inputs.filter((c) => c.usable),
  );
  const groupOf = new Map<number, number>();
  for (const g of groups) for (const m of g.members) groupOf.set(m, g.id);
  const unusable = inputs.length - grouped.length;
  if (unusable > 0)
    steps.push(`${unusable} of ${inputs.length} dropped (empty, tests only, or does not apply)`);
  let tier = bestTier(grouped, (c) => c.broke);
  const tested = grouped.filter((c) => c.broke !== null);
  if (tested.length > 0 && tier.length < grouped.length) {
    const best = tier[0].broke;
    steps.push(
      `regression tests: ${tier.length} of ${grouped.length} left (${best === 0 ? "none broken" : `${best} broken, the fewest`})`,
    );
  }
  // Among those breaking equally many, the ones whose broken tests are more of the kind the fix is expected to change.
  const beforeExpected = tier.length;
  tier = bestTier(tier, (c) => (c.broke === null ? null : c.broke - (c.expectedBroke ?? 0)));
  if (tier.length < beforeExpected)
    steps.push(
      `regression tests: ${tier.length} of ${beforeExpected} left (the same number broken, fewest not expected to change)`,
    );
  const before = tier.length;
  tier = bestTier(tier, (c) => (c.reproPassed === null ? null : -c.reproPassed));
  if (tier.length < before)
    steps.push(`reproduction tests: ${tier.length} of ${before} left (passing ${tier[0].reproPassed})`);
  const beforeExamples = tier.length;
  tier = bestTier(tier, (c) => (c.examplesChanged === null ? null : c.examplesChanged ? 0 : 1));
  if (tier.length < beforeExamples)
    steps.push(
      `issue examples: ${tier.length} of ${beforeExamples} left (${tier[0].examplesChanged ? "they change what an example prints" : "none changes what the examples print"})`,
    );
  const beforeStated = tier.length;
  tier = bestTier(tier, (c) =>
    c.examplesChanged && typeof c.examplesStated === "boolean" ? (c.examplesStated ? 0 : 1) : null,
  );
  if (tier.length < beforeStated)
    steps.push(
      `issue examples: ${tier.length} of ${beforeStated} left (they print a value the issue states)`,
    );
  const survivors = tier.map((c) => c.index).sort((a, b) => a - b);
  const alive = new Set(survivors);
  const counts = groups
    .map((g) => ({ g, n: g.members.filter((m) => alive.has(m)).length }))
    .filter((x) => x.n > 0);
  const most = Math.max(0, ...counts.map((x) => x.n));
  const top = counts.filter((x) => x.n === most).map((x) => x.g);
  return { survivors, groupOf, groups, top, steps };
}

/**
 * The deterministic tie rule: the group whose patch changes files that the most usable candidates
 * also change (where independent attempts agree the fix belongs), then the one whose
 * representative changes the fewest lines, then the group with the earliest candidate.
 */
export function breakTie(tied: VoteGroup[]): VoteGroup {
  return [...tied].sort(
    (a, b) => b.sharedFiles - a.sharedFiles || a.size - b.size || a.members[0] - b.members[0],
  )[0];
}
