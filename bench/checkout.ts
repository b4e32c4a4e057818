import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { SwebenchInstance } from "../src/dataset/types.js";
import { cloneDirFor, createWorkspace } from "../src/instance/workspace.js";

/**
 * `npm run bench -- --only checkout --repos-dir DIR [--repo sympy/sympy] [--count 6]`: what a work
 * tree with no history after the base commit costs on a large repository, against the floor of a
 * work tree that borrows the whole clone (what patchloop did before, which let `git log --all` show
 * the fix). Rows come from the SWE-bench Lite file in test/fixtures/swebench, in dataset order;
 * DIR holds the clone (`owner__repo`, e.g. a snapshot of sympy/sympy). Nothing is fetched.
 *
 * Figures: the first checkout with an empty history cache (the cache entry of the first base commit
 * is the repository's whole history up to it), each later base commit (an entry of what it adds
 * to the nearest cached ancestor), a repeat of a cached commit, and the floor; cache size per
 * commit against the clone's pack size.
 */

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

function seconds(t0: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - t0) / 1e6) / 1000;
}

function duKb(path: string): number {
  return Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0]);
}

export async function benchCheckout(): Promise<Record<string, unknown>> {
  const reposDir = arg("--repos-dir");
  const repo = arg("--repo", "sympy/sympy") as string;
  const count = Number(arg("--count", "6"));
  if (!reposDir)
    return { skipped: "give --repos-dir DIR with a clone named owner__repo (e.g. sympy__sympy)" };
  const clone = cloneDirFor(reposDir, repo);
  if (!existsSync(clone)) return { skipped: `no clone of ${repo} at ${clone}` };
  // from dist/bench/: the repository's own copy of the rows
  const lite = resolve(
    import.meta.dirname,
    "..",
    "..",
    "test",
    "fixtures",
    "swebench",
    "swe-bench-lite.test.jsonl",
  );
  const rows = readFileSync(lite, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as SwebenchInstance)
    .filter((r) => r.repo === repo)
    .slice(0, count);
  const root = mkdtempSync(join(tmpdir(), "patchloop-bench-checkout-"));
  const cache = join(root, "cache");
  const results: Array<Record<string, unknown>> = [];
  try {
    for (const [i, row] of rows.entries()) {
      const t0 = process.hrtime.bigint();
      const ws = await createWorkspace(reposDir, row, root, { historyCache: cache });
      const made = seconds(t0);
      const entryKb = duKb(ws.objectDirs[0]);
      await ws.remove();
      const t1 = process.hrtime.bigint();
      const again = await createWorkspace(reposDir, row, root, { historyCache: cache });
      const cached = seconds(t1);
      await again.remove();
      results.push({
        instance: row.instance_id,
        seconds: made,
        cached_seconds: cached,
        entry_mb: Math.round(entryKb / 102.4) / 10,
        chain: ws.objectDirs.length,
        ...(i === 0 ? { note: "empty cache: the whole history up to this commit" } : {}),
      });
    }
    // The floor: a work tree borrowing the whole clone (alternates), checked out.
    const gitDir = execFileSync(
      "git",
      ["-C", clone, "rev-parse", "--path-format=absolute", "--git-common-dir"],
      {
        encoding: "utf8",
      },
    ).trim();
    const floors: number[] = [];
    for (const row of rows) {
      const dir = mkdtempSync(join(root, "floor-"));
      const t0 = process.hrtime.bigint();
      execFileSync("git", ["init", "-q", dir]);
      execFileSync("sh", ["-c", `echo "${gitDir}/objects" > "${dir}/.git/objects/info/alternates"`]);
      execFileSync("git", [
        "-C",
        dir,
        "-c",
        "advice.detachedHead=false",
        "checkout",
        "-q",
        "--detach",
        row.base_commit,
      ]);
      floors.push(seconds(t0));
      rmSync(dir, { recursive: true, force: true });
    }
    const later = results.slice(1).map((r) => r.seconds as number);
    const cached = results.map((r) => r.cached_seconds as number);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? null;
    const floor = median(floors) ?? 1;
    return {
      repo,
      instances: results,
      floor_seconds_median: floor,
      first_over_floor: Math.round(((results[0]?.seconds as number) / floor) * 10) / 10,
      later_base_commits_over_floor: later.length
        ? Math.round(((median(later) as number) / floor) * 10) / 10
        : null,
      cached_over_floor: Math.round(((median(cached) as number) / floor) * 10) / 10,
      cache_mb: Math.round(duKb(cache) / 102.4) / 10,
      clone_pack_mb: Math.round(duKb(join(gitDir, "objects")) / 102.4) / 10,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
