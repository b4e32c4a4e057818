/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The candidate closest to `name`, or undefined when none is reasonably close. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const score = editDistance(name.toLowerCase(), c.toLowerCase());
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  if (best === undefined) return undefined;
  const containment = best.includes(name) || name.includes(best);
  return bestScore <= Math.max(2, Math.floor(best.length / 3)) || containment ? best : undefined;
}
