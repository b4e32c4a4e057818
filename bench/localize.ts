import { baselineRanking } from "../src/localize/baseline.js";
import { localize } from "../src/localize/localize.js";
import { arg, forEachCheckout, type Missing, selectedRows } from "./localize-data.js";
import { benchLocalizeLanguages } from "./localize-languages.js";
import { benchLocalizeMemory } from "./localize-memory.js";

/**
 * `npm run bench -- --only localize --repos-dir DIR`: fault localization on real SWE-bench rows
 * against the repositories in DIR (see localize-data.ts; nothing is fetched). For every instance
 * whose clone and base commit exist: a fresh checkout (workspace.ts), the localizer's ranking and,
 * on the same files in the same run, the SWE-bench BM25 baseline (baseline.ts), both scored
 * against the files the gold patch changes. Reports recall@1/3/5/10 and MRR per repository,
 * overall and for the two halves of the rows (A: the 1st, 3rd, ... row; B: the others), seconds
 * per instance (reading the checkout and ranking; the checkout itself apart), what was missing, and
 * the peak memory of localizing the same rows in one process, repositories dropped after their
 * last row against every repository kept (localize-memory.ts). With `--lang-repos DIR,...`, also
 * repositories beyond Python (localize-languages.ts).
 */

const KS = [1, 3, 5, 10] as const;

interface Scored {
  /** 1-based rank of each gold file in the top 10, 0 when not there. */
  ranks: number[];
}

function score(ranking: string[], gold: string[]): Scored {
  return { ranks: gold.map((g) => ranking.slice(0, 10).indexOf(g) + 1) };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** recall@k: the share of the gold files in the top k, averaged over instances; MRR of the first gold file. */
function metrics(list: Scored[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of KS)
    out[`recall@${k}`] = round(
      mean(list.map((s) => s.ranks.filter((r) => r > 0 && r <= k).length / s.ranks.length)),
    );
  out.mrr = round(
    mean(
      list.map((s) => {
        const found = s.ranks.filter((r) => r > 0);
        return found.length ? 1 / Math.min(...found) : 0;
      }),
    ),
  );
  return out;
}

interface Result {
  id: string;
  repo: string;
  ours: Scored;
  base: Scored;
  seconds: number;
  /** Of `seconds`: reading the checkout's files (the snapshot), and the ranking's steps in ms. */
  readSeconds: number;
  phases: Record<string, number>;
  checkoutSeconds: number;
  cold: boolean;
  half: "A" | "B";
}

function group(list: Result[]): Record<string, unknown> {
  return {
    instances: list.length,
    localizer: metrics(list.map((r) => r.ours)),
    baseline: metrics(list.map((r) => r.base)),
    seconds_per_instance: round(mean(list.map((r) => r.seconds))),
    max_seconds: round(Math.max(0, ...list.map((r) => r.seconds))),
  };
}

export async function benchLocalize(): Promise<Record<string, unknown>> {
  const reposDir = arg("--repos-dir") ?? process.env.PATCHLOOP_BENCH_REPOS;
  const languages = arg("--lang-repos") ? { languages: await benchLocalizeLanguages() } : {};
  if (!reposDir)
    return {
      skipped:
        "give --repos-dir DIR (or PATCHLOOP_BENCH_REPOS): a folder with one git clone per repository, named owner__repo",
      ...languages,
    };
  const rows = await selectedRows();
  const missing: Missing = {};
  const results: Result[] = [];
  const verbose = process.env.PATCHLOOP_BENCH_VERBOSE === "1";
  await forEachCheckout(reposDir, rows, missing, async (c) => {
    const t0 = performance.now();
    const ours = await localize(c.row.problem_statement, c.snapshot, { topK: 10, topSymbols: 5 });
    const seconds = c.snapshot.seconds + (performance.now() - t0) / 1000;
    const base = baselineRanking(c.row.problem_statement, c.snapshot, 10);
    const r: Result = {
      id: c.row.instance_id,
      repo: c.row.repo,
      ours: score(
        ours.files.map((f) => f.path),
        c.gold,
      ),
      base: score(base, c.gold),
      seconds,
      readSeconds: c.snapshot.seconds,
      phases: ours.phases,
      checkoutSeconds: c.checkoutSeconds,
      cold: c.cold,
      half: c.half,
    };
    results.push(r);
    if (verbose)
      process.stderr.write(
        `${c.row.instance_id}: ours ${r.ours.ranks.join(",")} baseline ${r.base.ranks.join(",")} ${seconds.toFixed(2)} s\n`,
      );
  });
  const repos: Record<string, unknown> = {};
  for (const repo of [...new Set(results.map((r) => r.repo))].sort())
    repos[repo] = group(results.filter((r) => r.repo === repo));
  const cold = results.filter((r) => r.cold);
  const warm = results.filter((r) => !r.cold);
  return {
    overall: group(results),
    per_repository: repos,
    halves: {
      A: group(results.filter((r) => r.half === "A")),
      B: group(results.filter((r) => r.half === "B")),
    },
    seconds: {
      note: "reading the checkout and ranking, per instance; the first instance of a repository reads and analyses every file, later ones only the files their commit changed",
      cold_first_instance_mean: round(mean(cold.map((r) => r.seconds))),
      cold_first_instance_max: round(Math.max(0, ...cold.map((r) => r.seconds))),
      warm_mean: round(mean(warm.map((r) => r.seconds))),
      checkout_mean: round(mean(results.map((r) => r.checkoutSeconds))),
      over_3_s: results.filter((r) => r.seconds > 3).length,
      slowest: [...results]
        .sort((a, b) => b.seconds - a.seconds)
        .slice(0, 5)
        .map((r) => ({
          instance_id: r.id,
          seconds: round(r.seconds),
          read: round(r.readSeconds),
          cold: r.cold,
          phases_ms: Object.fromEntries(
            Object.entries(r.phases)
              .sort((a, b) => b[1] - a[1])
              .slice(0, 4)
              .map(([k, v]) => [k, Math.round(v)]),
          ),
        })),
    },
    memory: benchLocalizeMemory(),
    ...languages,
    missing: Object.fromEntries(
      Object.entries(missing).map(([why, ids]) => [
        why,
        {
          instances: ids.length,
          ids: ids.length > 6 ? [...ids.slice(0, 6), `... ${ids.length - 6} more`] : ids,
        },
      ]),
    ),
  };
}
