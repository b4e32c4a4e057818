import { describe, expect, it } from "vitest";
import { setOf } from "../../bench/selection-data.js";
import {
  bestSingle,
  gapClosed,
  type InstanceAnswers,
  naiveVote,
  oracle,
  ownPicked,
  perSystem,
  randomPick,
  ratio,
  selected,
  whitespaceNormalized,
} from "../../bench/selection-metrics.js";

const A = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n";
const A_SPACED = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a  =  2   \n\n";
const B = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 3\n";
const C = "diff --git a/y.py b/y.py\n--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-b = 1\n+b = 0\n";

// Three systems over four instances.
const rows: InstanceAnswers[] = [
  // i1: A and A_SPACED agree (group of 2, both resolve); B does not.
  {
    instanceId: "sympy__sympy-10",
    answers: [
      { patch: A, resolved: true },
      { patch: A_SPACED, resolved: true },
      { patch: B, resolved: false },
    ],
  },
  // i2: a three-way tie of different patches; only the third resolves.
  {
    instanceId: "sympy__sympy-11",
    answers: [
      { patch: A, resolved: false },
      { patch: B, resolved: false },
      { patch: C, resolved: true },
    ],
  },
  // i3: two empty answers, one wrong patch.
  {
    instanceId: "pallets__flask-1",
    answers: [
      { patch: "", resolved: false },
      { patch: "  \n", resolved: false },
      { patch: B, resolved: false },
    ],
  },
  // i4: the two wrong answers agree and outvote the right one.
  {
    instanceId: "sympy__sympy-13",
    answers: [
      { patch: B, resolved: false },
      { patch: B, resolved: false },
      { patch: C, resolved: true },
    ],
  },
];

describe("selection figures", () => {
  it("counts each system and picks the best (the first of equals)", () => {
    expect(perSystem(rows)).toEqual([1, 1, 2]);
    expect(bestSingle(rows)).toEqual({ system: 2, figure: { resolved: 2, of: 4, percent: 50 } });
    expect(bestSingle([rows[0]])).toEqual({ system: 0, figure: { resolved: 1, of: 1, percent: 100 } });
  });

  it("random pick is the expected value, over all answers or the non-empty ones", () => {
    // i1 2/3, i2 1/3, i3 0, i4 1/3 -> 4/3
    expect(randomPick(rows, { skipEmpty: false })).toEqual({ resolved: 1.333, of: 4, percent: 33.3 });
    // i3 has one non-empty answer that fails: the same sum
    expect(randomPick(rows, { skipEmpty: true })).toEqual({ resolved: 1.333, of: 4, percent: 33.3 });
    const emptyWins: InstanceAnswers[] = [
      {
        instanceId: "x",
        answers: [
          { patch: "", resolved: false },
          { patch: A, resolved: true },
        ],
      },
    ];
    expect(randomPick(emptyWins, { skipEmpty: false }).resolved).toBe(0.5);
    expect(randomPick(emptyWins, { skipEmpty: true }).resolved).toBe(1);
  });

  it("the oracle counts instances some answer resolves", () => {
    expect(oracle(rows)).toEqual({ resolved: 3, of: 4, percent: 75 });
  });

  it("the naive vote groups whitespace-normalized patches and splits ties evenly", () => {
    expect(whitespaceNormalized(A_SPACED)).toBe(whitespaceNormalized(A));
    expect(whitespaceNormalized(A)).not.toBe(whitespaceNormalized(B));
    // i1 group {A, A_SPACED} wins: 1; i2 three-way tie: 1/3; i3 only B: 0; i4 {B, B} wins: 0
    expect(naiveVote(rows)).toEqual({ resolved: 1.333, of: 4, percent: 33.3 });
    // an instance with no non-empty answer contributes nothing
    expect(naiveVote([rows[2]]).resolved).toBe(0);
  });

  it("a selector's picks, the gap it closes and ratios", () => {
    const picked = new Map([
      ["sympy__sympy-10", true],
      ["sympy__sympy-11", true],
      ["pallets__flask-1", false],
    ]);
    const sel = selected(rows, picked);
    expect(sel).toEqual({ resolved: 2, of: 4, percent: 50 });
    const best = bestSingle(rows).figure;
    const top = oracle(rows);
    expect(gapClosed(sel, best, top)).toBe(0);
    expect(gapClosed(top, best, top)).toBe(1);
    expect(gapClosed(sel, best, best)).toBeNull();
    expect(ratio(sel, randomPick(rows, { skipEmpty: false }))).toBe(1.5);
    expect(ratio(sel, { resolved: 0, of: 4, percent: 0 })).toBeNull();
  });

  it("a system's own pick among its attempts counts the answer it submitted", () => {
    // i1: it submitted the wrong B; i2: the resolving C; i4: nothing recorded
    const which = new Map([
      ["sympy__sympy-10", 2],
      ["sympy__sympy-11", 2],
      ["pallets__flask-1", 0],
    ]);
    const own = ownPicked(rows, which);
    expect(own).toEqual(
      new Map([
        ["sympy__sympy-10", false],
        ["sympy__sympy-11", true],
        ["pallets__flask-1", false],
        ["sympy__sympy-13", false],
      ]),
    );
    expect(own && selected(rows, own)).toEqual({ resolved: 1, of: 4, percent: 25 });
    expect(ownPicked(rows, new Map())).toBeUndefined();
  });

  it("tuning holds even sympy issues and the other repositories; odd sympy issues are held out", () => {
    expect(setOf("sympy__sympy-24152")).toBe("tuning");
    expect(setOf("sympy__sympy-24909")).toBe("held-out");
    expect(setOf("pallets__flask-4045")).toBe("tuning");
    expect(setOf("pytest-dev__pytest-11143")).toBe("tuning");
  });
});
