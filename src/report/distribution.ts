/** The spread of one measure over instances (steps, tokens, seconds, cost). */
export interface Distribution {
  n: number;
  total: number;
  mean: number;
  median: number;
  /** Nearest-rank 90th percentile. */
  p90: number;
  min: number;
  max: number;
}

/** n, total, mean, median (the mean of the two middle values for even n), nearest-rank p90, min, max; all 0 for no values. */
export function distribution(values: number[]): Distribution {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  if (n === 0) return { n: 0, total: 0, mean: 0, median: 0, p90: 0, min: 0, max: 0 };
  const total = v.reduce((s, x) => s + x, 0);
  const mid = Math.floor(n / 2);
  return {
    n,
    total,
    mean: total / n,
    median: n % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2,
    p90: v[Math.max(0, Math.ceil(0.9 * n) - 1)],
    min: v[0],
    max: v[n - 1],
  };
}
