import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns, pairSentence, repositoryOf } from "../../src/compare/compare-runs.js";
import { CompareInputError, loadRun, loadRunFile } from "../../src/compare/load-run.js";
import { exactMcNemarP, meanAndSd, pairedBootstrap } from "../../src/compare/stats.js";
import { tempDir } from "../support/tmp.js";
import { harnessSummary, publishedVerdicts, runOf } from "./published-runs.js";

describe("exact McNemar p-value", () => {
  it("is the two-sided binomial test at 1/2 on the discordant pairs", () => {
    expect(exactMcNemarP(0, 0)).toBe(1);
    expect(exactMcNemarP(3, 3)).toBe(1);
    // 5 vs 0: 2 * (1/2)^5
    expect(exactMcNemarP(5, 0)).toBeCloseTo(0.0625, 15);
    expect(exactMcNemarP(0, 5)).toBeCloseTo(0.0625, 15);
    // 1 vs 9: 2 * (1 + 10) / 1024
    expect(exactMcNemarP(1, 9)).toBeCloseTo(22 / 1024, 15);
  });
});

describe("paired bootstrap", () => {
  const a = [true, true, false, false, true, false, true, false, false, true];
  const b = [true, false, true, true, true, true, true, false, true, true];
  it("gives the same interval for the same seed, another for another seed", () => {
    const one = pairedBootstrap(a, b, { resamples: 2000, seed: 7, level: 0.95 });
    expect(pairedBootstrap(a, b, { resamples: 2000, seed: 7, level: 0.95 })).toEqual(one);
    expect(one[0]).toBeLessThan(0.3);
    expect(one[1]).toBeGreaterThan(0.3);
    const other = pairedBootstrap(a, b, { resamples: 2000, seed: 8, level: 0.95 });
    expect(other).not.toEqual(
      pairedBootstrap(a, b, { resamples: 2000, seed: 8, level: 0.95 }).map((x) => x + 1),
    );
  });
  it("is [0, 0] for identical runs and refuses lists of different lengths", () => {
    expect(pairedBootstrap(a, a, { resamples: 100, seed: 1, level: 0.95 })).toEqual([0, 0]);
    expect(() => pairedBootstrap(a, b.slice(1), { resamples: 10, seed: 1, level: 0.95 })).toThrow(
      "10 verdicts against 9",
    );
  });
});

describe("mean and standard deviation", () => {
  it("uses n - 1 (the five identical runs of 100 tasks: 79, 75, 77, 76, 72)", () => {
    const { mean, sd } = meanAndSd([0.79, 0.75, 0.77, 0.76, 0.72]);
    expect(mean).toBeCloseTo(0.758, 12);
    // squared deviations from 0.758: 0.001024 + 0.000064 + 0.000144 + 0.000004 + 0.001444
    expect(sd).toBeCloseTo(Math.sqrt(0.00268 / 4), 12);
  });
});

describe("repositoryOf", () => {
  it("turns an instance id into owner/name", () => {
    expect(repositoryOf("django__django-11099")).toBe("django/django");
    expect(repositoryOf("scikit-learn__scikit-learn-14087")).toBe("scikit-learn/scikit-learn");
    expect(repositoryOf("sphinx-doc__sphinx-8721")).toBe("sphinx-doc/sphinx");
  });
});

describe("the sentence", () => {
  const t = {
    instances: 100,
    a_resolved: 65,
    b_resolved: 72,
    a_rate: 0.65,
    b_rate: 0.72,
    difference: 0.07,
    only_a: Array(5).fill("x"),
    only_b: Array(12).fill("y"),
    mcnemar_p: 0.1435,
    difference_ci: [-0.01, 0.15] as [number, number],
  };
  it("says which run is ahead, by how much, and whether that can be noise", () => {
    expect(pairSentence("A", "B", t, 0.95)).toBe(
      "B resolves 7 more of 100 than A (72 vs 65); p = 0.14, 95% interval of the difference -1.0 to +15.0 points: not distinguishable from run-to-run noise at 0.05.",
    );
    expect(pairSentence("A", "B", { ...t, mcnemar_p: 0.0004 }, 0.95)).toContain(
      "p < 0.001, 95% interval of the difference -1.0 to +15.0 points: unlikely to be run-to-run noise at 0.05.",
    );
    expect(
      pairSentence("A", "B", { ...t, b_resolved: 65, only_a: ["p"], only_b: ["q"], mcnemar_p: 1 }, 0.95),
    ).toBe("A and B both resolve 65 of 100, with 1 flips each way; p = 1: no difference in rate.");
  });
});

describe("compareRuns on the published GPT-5 and GPT-5 mini runs", () => {
  const runs = publishedVerdicts();
  const gpt5 = runOf("gpt-5", runs.get("gpt-5") ?? new Map());
  const mini = runOf("gpt-5-mini", runs.get("gpt-5-mini") ?? new Map());
  it("counts, flips and the sentence", () => {
    const r = compareRuns([gpt5, mini], { missing: "exclude" });
    expect(r.instances).toBe(500);
    const [p] = r.pairs;
    expect([p.a_resolved, p.b_resolved, p.only_a.length, p.only_b.length]).toEqual([325, 299, 54, 28]);
    expect(p.only_a).toContain("pylint-dev__pylint-7080");
    expect(p.only_b).toContain("django__django-11087");
    expect(p.sentence).toMatch(
      /^gpt-5 resolves 26 more of 500 than gpt-5-mini \(325 vs 299\); p = 0\.0054, 95% interval of the difference \+1\.6 to \+8\.8 points: unlikely to be run-to-run noise at 0\.05\.$/,
    );
    expect(p.per_repository.map((x) => x.repository)).toContain("django/django");
    expect(p.per_repository.reduce((s, x) => s + x.instances, 0)).toBe(500);
    expect(r.stability).toBeNull();
  });

  it("sets apart instances a run lacks and infrastructure failures, unless told to count them", () => {
    const dir = tempDir();
    const a = new Map([...(runs.get("gpt-5") ?? [])].slice(0, 10));
    const b = new Map([...(runs.get("gpt-5-mini") ?? [])].slice(0, 9));
    const lost = [...a.keys()][0];
    const ids = [...b.keys()];
    b.delete(lost);
    const bFile = join(dir, "b.json");
    const summary = harnessSummary(b) as { error_ids: string[] };
    summary.error_ids = [lost];
    writeFileSync(bFile, JSON.stringify(summary));
    const aFile = join(dir, "a.json");
    writeFileSync(aFile, JSON.stringify(harnessSummary(a)));
    const excluded = compareRuns([loadRun(aFile), loadRun(bFile)], { missing: "exclude" });
    expect(excluded.set_apart.infrastructure).toEqual({
      b: { [lost]: "harness error (no report.json; the summary does not say why)" },
    });
    const tenth = [...a.keys()][9];
    expect(excluded.set_apart.missing).toEqual({ b: [tenth] });
    expect(excluded.instances).toBe(8);
    expect(ids).not.toContain(tenth);
    const counted = compareRuns([loadRun(aFile), loadRun(bFile)], { missing: "unresolved" });
    expect(counted.instances).toBe(10);
    expect(counted.set_apart.total).toBe(0);
  });

  it("three runs: stability, mean and SD, majority and any-run rates, the pairwise table", () => {
    const first100 = new Set(runs.get("sonnet-4")?.keys());
    const three = [
      runOf("gpt-5", runs.get("gpt-5") ?? new Map(), first100),
      runOf("gpt-5-mini", runs.get("gpt-5-mini") ?? new Map(), first100),
      runOf("sonnet-4", runs.get("sonnet-4") ?? new Map()),
    ];
    const r = compareRuns(three, { missing: "exclude" });
    const s = r.stability;
    expect(r.instances).toBe(100);
    expect(r.runs.map((x) => x.resolved)).toEqual([61, 56, 61]);
    expect(s?.always_resolved).toBe(44);
    expect(s?.never_resolved).toBe(26);
    expect(s?.unstable).toBe(30);
    expect(s?.unstable_ids).toContain("django__django-11087");
    expect(s?.mean_rate).toBeCloseTo(178 / 300, 12);
    expect(s?.sd_rate).toBeCloseTo(Math.sqrt((2 * (0.05 / 3) ** 2 + (0.1 / 3) ** 2) / 2), 12);
    expect(r.pairs.map((p) => `${p.a}/${p.b}`)).toEqual([
      "gpt-5/gpt-5-mini",
      "gpt-5/sonnet-4",
      "gpt-5-mini/sonnet-4",
    ]);
    // Counted with awk from the two .tsv files: 60 resolved by 2 or 3 runs, 74 by at least one.
    expect(s?.majority_rate).toBe(0.6);
    expect(s?.any_rate).toBe(0.74);
  });
});

describe("reading runs", () => {
  it("reads SWE-bench/experiments results.json, a verdict map, and refuses other JSON with what it holds", () => {
    const dir = tempDir();
    const results = join(dir, "results.json");
    writeFileSync(
      results,
      JSON.stringify({ resolved: ["a__b-1"], no_generation: ["a__b-2"], no_logs: ["a__b-3"] }),
    );
    const r = loadRunFile(results);
    expect([
      r.kind,
      [...r.resolved],
      [...r.unresolved],
      [...r.infrastructure.keys()],
      r.resolvedOnly,
    ]).toEqual(["resolved-list", ["a__b-1"], ["a__b-2"], ["a__b-3"], true]);
    const map = join(dir, "verdicts.json");
    writeFileSync(map, JSON.stringify({ "a__b-1": { resolved: false }, "a__b-4": { resolved: true } }));
    expect([...loadRunFile(map).resolved]).toEqual(["a__b-4"]);
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ hello: 1 }));
    expect(() => loadRunFile(other)).toThrow(
      /other\.json: not a run's verdicts \(top-level keys: hello\); expected resolved_ids/,
    );
    expect(() => loadRun(join(dir, "nope"))).toThrow(CompareInputError);
    expect(() => loadRun(dir)).toThrow(/grade it first with `patchloop eval/);
  });

  it("a patchloop summary: a patch that did not apply is the model's, an environment mismatch is not", () => {
    const dir = tempDir();
    const file = join(dir, "m.patchloop-x.json");
    writeFileSync(
      file,
      JSON.stringify({
        resolved_ids: ["a__b-1"],
        unresolved_ids: ["a__b-2"],
        empty_patch_ids: ["a__b-3"],
        error_ids: ["a__b-4", "a__b-5"],
        patchloop: {
          patch_apply_failed_ids: ["a__b-4"],
          environment_mismatch_ids: ["a__b-5"],
          infrastructure_error_ids: [],
          errors: { "a__b-5": "FAIL_TO_PASS tests pass without the patch\nmore" },
        },
      }),
    );
    const r = loadRunFile(file);
    expect(r.kind).toBe("patchloop-eval-summary");
    expect([...r.unresolved].sort()).toEqual(["a__b-2", "a__b-3", "a__b-4"]);
    expect(Object.fromEntries(r.infrastructure)).toEqual({
      "a__b-5": "environment mismatch: FAIL_TO_PASS tests pass without the patch",
    });
  });
});
