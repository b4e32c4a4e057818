/**
 * The figures of the selection benchmark, from graded candidates: per instance, each candidate
 * system's patch and whether it resolves the instance. Pure functions, no files.
 */

/** One system's answer on one instance: its patch ("" when it gave none) and the grade. */
export interface Answer {
  patch: string;
  /** True when the patch resolves the instance; an empty or ungraded patch does not. */
  resolved: boolean;
  /** Whose verdict `resolved` is: this machine's `patchloop eval`, or the one the system published. */
  gradedBy?: "ours" | "official";
}

/** One instance: the answers of every system, in the same order for every instance. */
export interface InstanceAnswers {
  instanceId: string;
  answers: Answer[];
}

/** A count of resolved instances out of `of` (fractional for expected values). */
export interface Figure {
  resolved: number;
  of: number;
  percent: number;
}

function figure(resolved: number, of: number): Figure {
  const r = Math.round(resolved * 1000) / 1000;
  return { resolved: r, of, percent: of === 0 ? 0 : Math.round((resolved / of) * 1000) / 10 };
}

/** Whitespace does not count: every run of blanks is one space, lines are trimmed, blank lines dropped. */
export function whitespaceNormalized(patch: string): string {
  return patch
    .split("\n")
    .map((l) => l.replace(/\s+/g, " ").trim())
    .filter((l) => l.length > 0)
    .join("\n");
}

/** Resolved instances per system, in the systems' order. */
export function perSystem(instances: InstanceAnswers[]): number[] {
  const n = instances[0]?.answers.length ?? 0;
  return Array.from({ length: n }, (_, s) => instances.filter((i) => i.answers[s]?.resolved).length);
}

/** The system that resolves the most (the first of equals): what one would get knowing it beforehand. */
export function bestSingle(instances: InstanceAnswers[]): { system: number; figure: Figure } {
  const counts = perSystem(instances);
  const best = counts.reduce((b, c, s) => (c > (counts[b] ?? -1) ? s : b), 0);
  return { system: best, figure: figure(counts[best] ?? 0, instances.length) };
}

/** The expected number resolved when each instance takes one system's answer at random. */
export function randomPick(instances: InstanceAnswers[], options: { skipEmpty: boolean }): Figure {
  let sum = 0;
  for (const i of instances) {
    const pool = options.skipEmpty ? i.answers.filter((a) => a.patch.trim().length > 0) : i.answers;
    if (pool.length > 0) sum += pool.filter((a) => a.resolved).length / pool.length;
  }
  return figure(sum, instances.length);
}

/** Instances some system resolves: the most any selector could get from these candidates. */
export function oracle(instances: InstanceAnswers[]): Figure {
  return figure(instances.filter((i) => i.answers.some((a) => a.resolved)).length, instances.length);
}

/**
 * A vote over whitespace-normalized patches: the largest group of equal non-empty patches wins; a
 * tie counts each tied group's chance (a tie broken at random), so the figure is an expected value.
 */
export function naiveVote(instances: InstanceAnswers[]): Figure {
  let sum = 0;
  for (const i of instances) {
    const groups = new Map<string, Answer[]>();
    for (const a of i.answers) {
      if (a.patch.trim().length === 0) continue;
      const key = whitespaceNormalized(a.patch);
      groups.set(key, [...(groups.get(key) ?? []), a]);
    }
    const largest = Math.max(0, ...[...groups.values()].map((g) => g.length));
    const tied = [...groups.values()].filter((g) => g.length === largest);
    // Equal normalized patches can differ in whitespace that matters (Python indentation): a
    // group's answer is one of its members at random, so it counts its resolved share.
    if (tied.length > 0)
      sum += tied.reduce((s, g) => s + g.filter((a) => a.resolved).length / g.length, 0) / tied.length;
  }
  return figure(sum, instances.length);
}

/** A selector's result: per instance, whether the patch it picked resolves it (absent: it picked none). */
export function selected(instances: InstanceAnswers[], picked: ReadonlyMap<string, boolean>): Figure {
  return figure(instances.filter((i) => picked.get(i.instanceId) === true).length, instances.length);
}

/**
 * The picks of a system that chose among its own attempts: `which` says, per instance, the index of
 * the answer it submitted; the result says whether that answer resolves the instance (an instance
 * it names no answer for counts unresolved). Undefined when it names none at all (whole runs).
 */
export function ownPicked(
  instances: InstanceAnswers[],
  which: ReadonlyMap<string, number>,
): Map<string, boolean> | undefined {
  if (which.size === 0) return undefined;
  return new Map(
    instances.map((i) => {
      const k = which.get(i.instanceId);
      return [i.instanceId, k !== undefined && i.answers[k]?.resolved === true];
    }),
  );
}

/** The share of the gap from the best single system to the oracle that a result closes (null: no gap). */
export function gapClosed(result: Figure, best: Figure, top: Figure): number | null {
  const gap = top.resolved - best.resolved;
  return gap <= 0 ? null : Math.round(((result.resolved - best.resolved) / gap) * 1000) / 1000;
}

/** `a / b` to three places (null when b is 0). */
export function ratio(a: Figure, b: Figure): number | null {
  return b.resolved === 0 ? null : Math.round((a.resolved / b.resolved) * 1000) / 1000;
}
