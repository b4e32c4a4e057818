import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  boardOfDataset,
  leaderboardSection,
  type RunTotals,
  readLeaderboardSnapshot,
} from "../../src/report/leaderboard.js";
import { leaderboardLines } from "../../src/report/leaderboard-text.js";

// The expected ranks and neighbours were computed from the snapshot file with Python, not with this code.
const snapshot = readLeaderboardSnapshot();
const run = (over: Partial<RunTotals>): RunTotals => ({
  dataset: { name: "lite", split: "test" },
  instances: 300,
  graded: 300,
  resolved: 116,
  attempts: false,
  ...over,
});

describe("the leaderboard snapshot report places a run against", () => {
  it("is the dated Lite and Verified snapshot, entries best first", () => {
    expect([snapshot.date, snapshot.source]).toEqual([
      "2025-12-10",
      "https://github.com/SWE-bench/swe-bench.github.io/blob/f1176b65ae29d14f4f52208b48e3d8cfc972bc17/data/leaderboards.json",
    ]);
    const { lite, verified } = snapshot.leaderboards;
    expect([lite.instances, lite.entries.length, verified.instances, verified.entries.length]).toEqual([
      300, 84, 500, 162,
    ]);
    expect([lite.entries[0].name, lite.entries[0].resolved]).toEqual([
      "ExpeRepair-v1.0 + Claude 4 Sonnet",
      60.33,
    ]);
    expect([verified.entries[0].name, verified.entries[0].resolved]).toEqual([
      "TRAE + Doubao-Seed-Code",
      78.8,
    ]);
  });

  it("a snapshot of another shape is refused with its path", () => {
    const dir = mkdtempSync(join(tmpdir(), "patchloop-lb-"));
    try {
      const bad = join(dir, "lb.json");
      writeFileSync(bad, JSON.stringify({ ...snapshot, leaderboards: { lite: snapshot.leaderboards.lite } }));
      expect(() => readLeaderboardSnapshot(bad)).toThrow(`${bad}: not a leaderboard snapshot`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the dataset's name says the board: patchloop's and Hugging Face's names, test split only", () => {
    expect(
      [
        ["lite", "test"],
        ["princeton-nlp/SWE-bench_Lite", "test"],
        ["SWE-bench/SWE-bench_Verified", null],
        ["verified", "test"],
        ["lite", "dev"],
        ["multilingual", "test"],
        ["/data/rows.jsonl", null],
        [null, null],
      ].map(([n, s]) => boardOfDataset(n, s)),
    ).toEqual(["lite", "lite", "verified", "verified", null, null, null, null]);
  });

  it("116 of Lite's 300 (the 26B write-up's 38.67%): rank, neighbours, top, median, open models", () => {
    const l = leaderboardSection(run({}), snapshot);
    expect(l.standing).toEqual({
      split_instances: 300,
      run_instances: 300,
      resolved: 116,
      percent: 38.67,
      rank: 32,
      entries: 84,
      above: { name: "Moatless Tools + Claude 3.5 Sonnet (20241022)", resolved: 39, date: "2025-01-14" },
      below: { name: "Honeycomb", resolved: 38.33, date: "2024-08-20" },
      top: { name: "ExpeRepair-v1.0 + Claude 4 Sonnet", resolved: 60.33, date: "2025-06-25" },
      median: 33.5,
      open_model: { rank: 4, entries: 8 },
    });
    expect(l.notes).toEqual([]);
    expect(leaderboardLines(l)).toEqual([
      `Snapshot of the public SWE-bench leaderboards of 2025-12-10 (${snapshot.source}).`,
      "On SWE-bench Lite this run resolves 116 of 300 (38.67%): rank 32 of 85 with the snapshot's 84 entries, " +
        "below Moatless Tools + Claude 3.5 Sonnet (20241022) (39.00%, 2025-01-14) and above Honeycomb (38.33%, 2024-08-20). " +
        "Top: ExpeRepair-v1.0 + Claude 4 Sonnet (60.33%, 2025-06-25); median entry 33.50%. " +
        "Among the 8 entries with an open model: rank 4 of 9.",
    ]);
  });

  it("Verified: a tie shares the rank and says level with", () => {
    const l = leaderboardSection(
      run({
        dataset: { name: "princeton-nlp/SWE-bench_Verified", split: "test" },
        instances: 500,
        graded: 500,
        resolved: 350,
      }),
      snapshot,
    );
    expect(l.board).toBe("verified");
    expect(l.standing).toMatchObject({
      percent: 70,
      rank: 33,
      entries: 162,
      median: 53.3,
      open_model: { rank: 2, entries: 30 },
    });
    expect(l.standing?.above).toEqual({ name: "devlo", resolved: 70.2, date: "2025-05-19" });
    expect(leaderboardLines(l)[1]).toContain(
      "below devlo (70.20%, 2025-05-19) and level with Zencoder (2025-04-30) (70.00%, 2025-04-30)",
    );
  });

  it("a run of part of the split counts the rest as unresolved, and says so; attempts are said", () => {
    const l = leaderboardSection(run({ instances: 6, graded: 6, resolved: 1, attempts: true }), snapshot);
    expect(l.standing).toMatchObject({ run_instances: 6, resolved: 1, percent: 0.33, rank: 84 });
    expect(l.notes).toEqual([
      "the run took 6 of the 300 instances; the leaderboard divides by all 300, so the 294 it did not take count as unresolved here (its rate on the instances it took, 16.67%, is not comparable)",
      "the run made several attempts per instance: compare it with entries tagged `Attempts 2+`",
    ]);
  });

  it("no standing: another dataset, a file without --leaderboard, an ungraded run, more instances than the split", () => {
    const other = leaderboardSection(run({ dataset: { name: "multilingual", split: "test" } }), snapshot);
    expect([other.board, other.standing, other.notes]).toEqual([
      null,
      null,
      [
        "a run on multilingual (test): the snapshot has the SWE-bench Lite and Verified test leaderboards only; if its rows are one of those splits, say which with --leaderboard lite|verified",
      ],
    ]);
    expect(leaderboardLines(other)[1]).toBe(`No standing: ${other.notes[0]}.`);
    const file = run({ dataset: { name: "/data/lite.jsonl", split: null } });
    expect(leaderboardSection(file, snapshot).board).toBeNull();
    expect(leaderboardSection(file, snapshot, "lite").standing?.rank).toBe(32);
    expect(leaderboardSection(run({ graded: 0, resolved: 0 }), snapshot).notes).toEqual([
      "not graded: grade it with `patchloop eval DIR` first",
    ]);
    expect(
      leaderboardSection(run({ dataset: { name: "lite", split: "test" }, instances: 500 }), snapshot).notes,
    ).toEqual(["the run holds 500 instances, more than the 300 of SWE-bench Lite: not that split"]);
  });
});
