import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPatchloop } from "../support/cli.js";
import { tempDir } from "../support/tmp.js";
import { harnessSummary, publishedVerdicts } from "./published-runs.js";

/** `patchloop compare` as a user runs it, on harness summaries of the published runs. */
describe("patchloop compare", () => {
  const runs = publishedVerdicts();

  function files(dir: string): { gpt5: string; mini: string } {
    const gpt5 = join(dir, "openai__gpt-5.published.json");
    const mini = join(dir, "openai__gpt-5-mini.published.json");
    writeFileSync(gpt5, JSON.stringify(harnessSummary(runs.get("gpt-5") ?? new Map())));
    writeFileSync(mini, JSON.stringify(harnessSummary(runs.get("gpt-5-mini") ?? new Map())));
    return { gpt5, mini };
  }

  it("--json: the contract's fields, the same numbers on every run (seeded)", async () => {
    const dir = tempDir();
    const { gpt5, mini } = files(dir);
    const one = await runPatchloop(["compare", gpt5, mini, "--json"]);
    expect(one.stderr).toBe("");
    expect(one.code).toBe(0);
    const r = JSON.parse(one.stdout);
    expect(Object.keys(r)).toEqual([
      "format",
      "runs",
      "missing",
      "instances",
      "set_apart",
      "bootstrap",
      "pairs",
      "stability",
    ]);
    expect(r.format).toBe("patchloop-compare-1");
    expect(
      r.runs.map((x: { name: string; kind: string; resolved: number }) => [x.name, x.kind, x.resolved]),
    ).toEqual([
      ["openai__gpt-5.published", "harness-summary", 325],
      ["openai__gpt-5-mini.published", "harness-summary", 299],
    ]);
    expect(r.bootstrap).toEqual({ resamples: 10000, seed: 20240101, level: 0.95 });
    const p = r.pairs[0];
    expect(Object.keys(p)).toEqual([
      "a",
      "b",
      "instances",
      "a_resolved",
      "b_resolved",
      "a_rate",
      "b_rate",
      "difference",
      "only_a",
      "only_b",
      "mcnemar_p",
      "difference_ci",
      "sentence",
      "per_repository",
    ]);
    expect([p.instances, p.only_a.length, p.only_b.length, p.difference]).toEqual([500, 54, 28, -0.052]);
    const again = await runPatchloop(["compare", gpt5, mini, "--json"]);
    expect(again.stdout).toBe(one.stdout);
    const seeded = JSON.parse((await runPatchloop(["compare", gpt5, mini, "--json", "--seed", "7"])).stdout);
    expect(seeded.bootstrap.seed).toBe(7);
    expect(seeded.pairs[0].mcnemar_p).toBe(p.mcnemar_p);
  });

  it("text: the sentence, the flips listed, the per-repository table", async () => {
    const dir = tempDir();
    const { gpt5, mini } = files(dir);
    const r = await runPatchloop(["compare", gpt5, mini]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "openai__gpt-5.published resolves 26 more of 500 than openai__gpt-5-mini.published (325 vs 299); p = 0.0054, 95% interval of the difference +1.6 to +8.8 points: unlikely to be run-to-run noise at 0.05.",
    );
    expect(r.stdout).toContain("resolved by openai__gpt-5.published only (54):\n  astropy__astropy-14539\n");
    expect(r.stdout).toContain("resolved by openai__gpt-5-mini.published only (28):\n");
    expect(r.stdout).toMatch(/\n\| django\/django \| 231 \| \d+ \| \d+ \| /);
  });

  it("a run folder is read through its eval summary; attempt runs are left out", async () => {
    const dir = tempDir();
    const { gpt5 } = files(dir);
    const folder = join(dir, "my-run");
    const evalDir = join(folder, "eval", "patchloop-my-run");
    mkdirSync(evalDir, { recursive: true });
    mkdirSync(join(folder, "eval", "patchloop-my-run-attempt-2"), { recursive: true });
    const some = new Map([...(runs.get("gpt-5-mini") ?? [])].slice(0, 40));
    writeFileSync(join(evalDir, "m.patchloop-my-run.json"), JSON.stringify(harnessSummary(some)));
    writeFileSync(
      join(folder, "eval", "patchloop-my-run-attempt-2", "m.patchloop-my-run-attempt-2.json"),
      JSON.stringify(harnessSummary(new Map([...some].map(([id]) => [id, true])))),
    );
    const r = JSON.parse((await runPatchloop(["compare", gpt5, folder, "--json"])).stdout);
    expect(r.runs[1]).toMatchObject({ name: "my-run", kind: "patchloop-run-folder", source: folder });
    expect(r.instances).toBe(40);
    expect(r.set_apart.missing["my-run"]).toHaveLength(460);
    expect(r.runs[1].resolved).toBe([...some.values()].filter(Boolean).length);
    const counted = JSON.parse(
      (await runPatchloop(["compare", gpt5, folder, "--json", "--missing", "unresolved"])).stdout,
    );
    expect(counted.instances).toBe(500);
    expect(counted.runs[1].resolved).toBe(r.runs[1].resolved);
  });

  it("exit 2 with what was wrong: one run, an unreadable file, a bad flag", async () => {
    const dir = tempDir();
    const { gpt5 } = files(dir);
    const one = await runPatchloop(["compare", gpt5]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("patchloop compare: needs two runs or more to compare, got 1");
    const junk = join(dir, "junk.json");
    writeFileSync(junk, "[1, 2]");
    const bad = await runPatchloop(["compare", gpt5, junk]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("junk.json: a JSON list, not a run summary");
    const flag = await runPatchloop(["compare", gpt5, gpt5, "--missing", "zero"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--missing takes exclude or unresolved, got "zero"');
  });
});
