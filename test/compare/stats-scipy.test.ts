import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compareRuns, type PairTest } from "../../src/compare/compare-runs.js";
import type { RunVerdicts } from "../../src/compare/load-run.js";
import { publishedVerdicts, runOf } from "./published-runs.js";

/**
 * `compare`'s statistics against an established implementation, on real published runs
 * (test/fixtures/published-runs): the exact McNemar p-value against scipy.stats.binomtest (within
 * 1e-9), and the bootstrap interval against the exact quantiles of the same bootstrap statistic
 * computed another way: the paired bootstrap's difference is (X01 - X10) / n with (X01, X10) the
 * discordant counts of a multinomial draw of n instances, whose distribution scipy gives exactly.
 * Tolerance for the bootstrap's ends: 0.004 or one step of 1/n, whichever is larger (with 10,000
 * resamples the Monte Carlo error of a 2.5% quantile is about 0.0005 at n = 500; at small n the
 * quantile sits on an atom of the distribution, and the draw can land on the atom beside it).
 */
const PYTHON = "/usr/bin/python3";

const REFERENCE = `
import json, sys
import numpy as np
from scipy.stats import binom, binomtest
out = []
for t in json.load(sys.stdin):
    n, a, b = t["n"], t["only_a"], t["only_b"]
    p = binomtest(b, a + b, 0.5).pvalue if a + b else 1.0
    p01, p10 = b / n, a / n
    dist = np.zeros(2 * n + 1)
    k = np.arange(n + 1)
    for x01 in range(n + 1):
        w = binom.pmf(x01, n, p01)
        if w == 0:
            continue
        rest = 1 - p01
        q = 0.0 if rest <= 0 else min(1.0, p10 / rest)
        j = np.arange(n - x01 + 1)
        dist[x01 - j + n] += w * binom.pmf(j, n - x01, q)
    cdf = np.cumsum(dist)
    lo = (int(np.searchsorted(cdf, 0.025 - 1e-12)) - n) / n
    hi = (int(np.searchsorted(cdf, 0.975 - 1e-12)) - n) / n
    out.append({"p": p, "lo": lo, "hi": hi})
print(json.dumps(out))
`;

function scipyMissing(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing`;
  const r = spawnSync(PYTHON, ["-c", "import scipy, numpy"], { encoding: "utf8" });
  return r.status === 0
    ? null
    : `scipy is missing (${r.stderr.trim().split("\n").at(-1)}): apt-get install python3-scipy`;
}

function reference(tests: PairTest[]): Array<{ p: number; lo: number; hi: number }> {
  const input = JSON.stringify(
    tests.map((t) => ({ n: t.instances, only_a: t.only_a.length, only_b: t.only_b.length })),
  );
  const r = spawnSync(PYTHON, ["-c", REFERENCE], { input, encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`the scipy reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const missing = scipyMissing();
if (missing) console.log(`test/compare/stats-scipy.test.ts skipped: ${missing}`);

describe.skipIf(missing !== null)("compare's statistics equal scipy's on published runs", () => {
  const runs = publishedVerdicts();
  const first100 = new Set(runs.get("sonnet-4")?.keys());
  const all: RunVerdicts[] = [
    runOf("gpt-5", runs.get("gpt-5") ?? new Map()),
    runOf("gpt-5-mini", runs.get("gpt-5-mini") ?? new Map()),
  ];
  const hundred: RunVerdicts[] = [
    runOf("gpt-5", runs.get("gpt-5") ?? new Map(), first100),
    runOf("gpt-5-mini", runs.get("gpt-5-mini") ?? new Map(), first100),
    runOf("sonnet-4", runs.get("sonnet-4") ?? new Map()),
  ];

  it("every pair and every repository of each pair: p within 1e-9, interval within tolerance", () => {
    const tests: PairTest[] = [];
    for (const result of [
      compareRuns(all, { missing: "exclude" }),
      compareRuns(hundred, { missing: "exclude" }),
    ])
      for (const pair of result.pairs) tests.push(pair, ...pair.per_repository);
    expect(tests.length).toBeGreaterThan(30);
    // A table with discordant pairs is what the p-value is about; the published runs have plenty.
    expect(tests.filter((t) => t.only_a.length + t.only_b.length > 0).length).toBeGreaterThan(25);
    const ref = reference(tests);
    tests.forEach((t, i) => {
      const where = `table ${i} (n ${t.instances}, ${t.only_a.length} vs ${t.only_b.length})`;
      expect(Math.abs(t.mcnemar_p - ref[i].p), where).toBeLessThan(1e-9);
      const tol = Math.max(0.004, 1 / t.instances) + 1e-12;
      expect(Math.abs(t.difference_ci[0] - ref[i].lo), `${where} low end`).toBeLessThanOrEqual(tol);
      expect(Math.abs(t.difference_ci[1] - ref[i].hi), `${where} high end`).toBeLessThanOrEqual(tol);
    });
    // The headline pair, in numbers a reader can check by hand: 54 vs 28 discordant of 500.
    const head = tests[0];
    expect([head.only_a.length, head.only_b.length]).toEqual([54, 28]);
    expect(head.mcnemar_p).toBeCloseTo(0.005435924877566281, 12);
  });
});
