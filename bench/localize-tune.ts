import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { FEATURES } from "../src/localize/features.js";
import { gatherEvidence, weighed } from "../src/localize/rank.js";
import type { FileKind } from "../src/localize/repo-files.js";
import { DEFAULT_WEIGHTS, type RankWeights } from "../src/localize/weights.js";
import { arg, forEachCheckout, type Missing, selectedRows } from "./localize-data.js";

/**
 * How the localizer's weights (src/localize/weights.ts) were adjusted:
 * `node dist/bench/localize-tune.js --repos-dir DIR [--features FILE]`.
 * It gathers every file's evidence for each SWE-bench row (features.ts; or reads it back from
 * FILE, written the first time), then moves one weight at a time (coordinate ascent, starting from
 * the hand-set weights) while the objective improves: half the share of rows whose first gold
 * file is ranked 1st, a quarter the share in the top 5, a quarter the mean reciprocal rank. The
 * rows are split in two halves (A: the 1st, 3rd, ... row; B: the others): weights fitted on one half
 * are scored on the other, to show how much of the gain holds on rows they were not fitted on;
 * then the weights are fitted on all rows and printed. Only the evidence and the gold files'
 * ranks are used: no instance id, no per-repository weight. The module graph's evidence
 * (`imported_by_top`) follows from the ranking itself (rank.ts, importFeatures), so it is not in the
 * gathered evidence and its weight is not fitted here.
 */

interface Candidate {
  kind: FileKind;
  values: number[];
  gold: boolean;
}

interface Instance {
  id: string;
  repo: string;
  half: "A" | "B";
  /** Gold files without any evidence (never ranked, whatever the weights). */
  goldMissing: number;
  candidates: Candidate[];
}

type Params = number[];
const KINDS: FileKind[] = ["test", "doc", "other"];

function toParams(w: RankWeights): Params {
  return [...FEATURES.map((f) => w.features[f]), ...KINDS.map((k) => w.kinds[k])];
}

function toWeights(p: Params, r: (x: number) => number = round): RankWeights {
  return {
    features: Object.fromEntries(FEATURES.map((f, i) => [f, r(p[i])])) as RankWeights["features"],
    kinds: {
      source: 1,
      ...Object.fromEntries(KINDS.map((k, i) => [k, r(p[FEATURES.length + i])])),
    } as RankWeights["kinds"],
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Rank of the first gold file (Infinity when none has evidence). */
function firstGoldRank(inst: Instance, p: Params): number {
  const w = toWeights(p, (x) => x);
  let goldBest = -Infinity;
  const scores = inst.candidates.map((c) => {
    const s = weighed(c.values, c.kind, w);
    if (c.gold) goldBest = Math.max(goldBest, s);
    return s;
  });
  if (goldBest === -Infinity || goldBest <= 0) return Infinity;
  // ties count against the gold file
  return 1 + scores.filter((s, i) => s >= goldBest && !inst.candidates[i].gold).length;
}

function evaluate(list: Instance[], p: Params): { objective: number; at1: number; at5: number; mrr: number } {
  let at1 = 0;
  let at5 = 0;
  let mrr = 0;
  for (const inst of list) {
    const r = firstGoldRank(inst, p);
    if (r === 1) at1++;
    if (r <= 5) at5++;
    mrr += 1 / r;
  }
  const n = list.length || 1;
  return { objective: (0.5 * at1 + 0.25 * at5 + 0.25 * mrr) / n, at1: at1 / n, at5: at5 / n, mrr: mrr / n };
}

function fitWeights(list: Instance[], start: Params): Params {
  let p = [...start];
  let best = evaluate(list, p).objective;
  for (let round = 0; round < 12; round++) {
    let improved = false;
    for (let i = 0; i < p.length; i++) {
      const tries =
        p[i] === 0
          ? [0.25, 0.5, 1, 2]
          : [0, 0.5, 0.7, 0.85, 1.15, 1.4, 2]
              .map((m) => p[i] * m)
              .filter((v) => i < FEATURES.length || v <= 1);
      for (const v of tries) {
        const q = [...p];
        q[i] = v;
        const o = evaluate(list, q).objective;
        if (o > best + 1e-9) {
          best = o;
          p = q;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return p;
}

async function gather(reposDir: string): Promise<Instance[]> {
  const rows = await selectedRows();
  const missing: Missing = {};
  const out: Instance[] = [];
  await forEachCheckout(reposDir, rows, missing, async (c) => {
    const g = await gatherEvidence(c.row.problem_statement, c.snapshot);
    const gold = new Set(c.gold);
    const candidates: Candidate[] = [];
    for (const [file, e] of g.table.byFile)
      candidates.push({
        kind: g.files[file].kind,
        values: [...e.values].map(round),
        gold: gold.has(g.files[file].path),
      });
    out.push({
      id: c.row.instance_id,
      repo: c.row.repo,
      half: c.half,
      goldMissing: c.gold.length - candidates.filter((x) => x.gold).length,
      candidates,
    });
    process.stderr.write(".");
  });
  process.stderr.write(
    `\n${out.length} instances; missing: ${JSON.stringify(Object.fromEntries(Object.entries(missing).map(([k, v]) => [k, v.length])))}\n`,
  );
  return out;
}

async function main(): Promise<void> {
  const cache = arg("--features");
  let data: Instance[];
  if (cache && existsSync(cache)) {
    data = JSON.parse(readFileSync(cache, "utf8")) as Instance[];
  } else {
    const reposDir = arg("--repos-dir");
    if (!reposDir)
      throw new Error(
        "give --repos-dir DIR (a folder of owner__repo git clones), or --features FILE written by an earlier run",
      );
    data = await gather(reposDir);
    if (cache) writeFileSync(cache, JSON.stringify(data));
  }
  const start = toParams(DEFAULT_WEIGHTS);
  const A = data.filter((d) => d.half === "A");
  const B = data.filter((d) => d.half === "B");
  const fA = fitWeights(A, start);
  const fB = fitWeights(B, start);
  const fAll = fitWeights(data, start);
  const show = (e: ReturnType<typeof evaluate>) => ({
    "hit@1": round(e.at1),
    "hit@5": round(e.at5),
    mrr: round(e.mrr),
  });
  const report = {
    instances: data.length,
    hand_set_weights: {
      all: show(evaluate(data, start)),
      A: show(evaluate(A, start)),
      B: show(evaluate(B, start)),
    },
    fitted_on_A: { on_A: show(evaluate(A, fA)), on_B_held_out: show(evaluate(B, fA)) },
    fitted_on_B: { on_B: show(evaluate(B, fB)), on_A_held_out: show(evaluate(A, fB)) },
    fitted_on_all: { on_all: show(evaluate(data, fAll)), weights: toWeights(fAll) },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
