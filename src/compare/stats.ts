/**
 * The statistics of `patchloop compare`, pure and small: the exact (binomial) McNemar test on the
 * discordant pairs, a seeded paired bootstrap interval of a difference in resolve rate, and the
 * mean and standard deviation of rates. Checked against scipy in test/compare/.
 */

/** log(k!) for k = 0..n, by summing logs (exact enough for the p-values here: relative error ~1e-13). */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) out[k] = out[k - 1] + Math.log(k);
  return out;
}

/** Relative tolerance scipy's `binomtest` uses when it gathers outcomes as likely as the observed one. */
const SAME_LIKELIHOOD = 1 + 1e-7;

/**
 * Two-sided exact binomial test of `k` successes in `n` trials with success probability 1/2:
 * the sum of the probabilities of every outcome no more likely than `k` (scipy.stats.binomtest's
 * rule). With `k` and `n` the discordant pairs of two runs (resolved by one run only) this is the
 * exact McNemar test. `n` = 0 (no discordant pair) gives 1.
 */
export function exactMcNemarP(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const lf = logFactorials(n);
  const logHalfN = n * Math.log(0.5);
  const logPmf = (i: number) => lf[n] - lf[i] - lf[n - i] + logHalfN;
  const observed = logPmf(onlyA);
  const bound = observed + Math.log(SAME_LIKELIHOOD);
  let p = 0;
  for (let i = 0; i <= n; i++) {
    const lp = logPmf(i);
    if (lp <= bound) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/** A seeded 32-bit generator (mulberry32): the same seed gives the same draws on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What `pairedBootstrap` is asked for. */
export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** Coverage of the interval (0.95 for a 95% interval). */
  level: number;
}

/** The seed, resamples and level `compare` uses unless told otherwise. */
export const BOOTSTRAP_DEFAULTS: BootstrapOptions = { resamples: 10_000, seed: 20_240_101, level: 0.95 };

/**
 * Percentile interval of the difference in resolve rate (B minus A) by the paired bootstrap:
 * `resamples` times, draw as many instances as there are, with replacement, and take the
 * difference of the two runs' rates on the draw; the interval's ends are the (1-level)/2 and
 * (1+level)/2 quantiles of those differences (the lower and upper order statistics at
 * floor(q*(R-1)) and ceil(q*(R-1))). `a[i]` and `b[i]` are the two verdicts on instance i.
 * Empty input gives [0, 0].
 */
export function pairedBootstrap(a: boolean[], b: boolean[], options: BootstrapOptions): [number, number] {
  const n = a.length;
  if (n !== b.length) throw new Error(`pairedBootstrap: ${n} verdicts against ${b.length}`);
  if (n === 0 || options.resamples < 1) return [0, 0];
  const delta = new Int8Array(n);
  for (let i = 0; i < n; i++) delta[i] = (b[i] ? 1 : 0) - (a[i] ? 1 : 0);
  const random = seededRandom(options.seed);
  const diffs = new Float64Array(options.resamples);
  for (let r = 0; r < options.resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += delta[Math.floor(random() * n)];
    diffs[r] = sum / n;
  }
  diffs.sort();
  const tail = (1 - options.level) / 2;
  const last = options.resamples - 1;
  return [diffs[Math.floor(tail * last)], diffs[Math.ceil((1 - tail) * last)]];
}

/** Mean and sample standard deviation (n - 1 in the denominator; 0 for fewer than two values). */
export function meanAndSd(values: number[]): { mean: number; sd: number } {
  if (values.length === 0) return { mean: 0, sd: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  if (values.length < 2) return { mean, sd: 0 };
  const ss = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  return { mean, sd: Math.sqrt(ss / (values.length - 1)) };
}
