import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { loadDataset } from "../src/dataset/load.js";
import { selectInstances } from "../src/dataset/select.js";
import type { SwebenchInstance } from "../src/dataset/types.js";
import { cloneDirFor, createWorkspace } from "../src/instance/workspace.js";
import { makeWorkspaceRoot } from "../src/instance/workspace-root.js";
import { readWorkTree } from "../src/localize/read-worktree.js";
import { repoAnalyses } from "../src/localize/repo-analyses.js";
import { DEFAULT_LIMITS, DocStore, type RepoSnapshot } from "../src/localize/repo-files.js";

/**
 * The SWE-bench rows and checkouts the localization benchmark and its weight tuner share. Flags:
 * `--repos-dir DIR` (one `owner__repo` git clone per repository; nothing is fetched), `--subset`
 * (a dataset name or file; default: the Lite test rows in test/fixtures/swebench), `--filter`,
 * `--slice`, `--instance-ids`.
 */

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The files a patch changes (the benchmark's answer key; the ranking never sees it). */
export function goldFiles(patch: string): string[] {
  return [...new Set([...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]))];
}

export interface Checkout {
  row: SwebenchInstance;
  snapshot: RepoSnapshot;
  gold: string[];
  /** Seconds making the checkout, and reading it. */
  checkoutSeconds: number;
  /** Whether this is the first instance of its repository (every file read, nothing cached). */
  cold: boolean;
  /** Alternate rows in dataset order: A, B, A, ... */
  half: "A" | "B";
}

/** What could not be checked out: reason → instance ids. */
export type Missing = Record<string, string[]>;

function note(missing: Missing, why: string, id: string): void {
  missing[why] = [...(missing[why] ?? []), id];
}

export async function selectedRows(): Promise<SwebenchInstance[]> {
  const subset =
    arg("--subset") ??
    new URL("../../test/fixtures/swebench/swe-bench-lite.test.jsonl", import.meta.url).pathname;
  const all = await loadDataset({ subset });
  const ids = (arg("--instance-ids") ?? "").split(/[\s,]+/).filter(Boolean);
  return selectInstances(all, { filter: arg("--filter"), slice: arg("--slice"), instanceIds: ids });
}

/**
 * Calls `each` with a fresh checkout of every row whose clone and base commit exist (removed
 * afterwards), repository by repository, oldest instance first; the others go to `missing`.
 */
export async function forEachCheckout(
  reposDir: string,
  rows: SwebenchInstance[],
  missing: Missing,
  each: (c: Checkout) => Promise<void>,
): Promise<void> {
  const half = new Map(rows.map((r, i) => [r.instance_id, i % 2 === 0 ? ("A" as const) : ("B" as const)]));
  const byRepo = new Map<string, SwebenchInstance[]>();
  for (const r of rows) {
    if (!existsSync(cloneDirFor(reposDir, r.repo))) {
      note(missing, `no clone of ${r.repo} in ${reposDir}`, r.instance_id);
      continue;
    }
    byRepo.set(r.repo, [...(byRepo.get(r.repo) ?? []), r]);
  }
  const root = await makeWorkspaceRoot();
  // each repository's analyses are kept for its later rows and dropped after its last
  const analyses = repoAnalyses();
  try {
    for (const [repo, list] of byRepo) {
      analyses.retain(repo, list.length);
      // oldest first: each checkout's history then builds on the previous one's (history-cache.ts)
      list.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      let cold = true;
      for (const row of list) {
        const t0 = performance.now();
        let ws: Awaited<ReturnType<typeof createWorkspace>>;
        try {
          ws = await createWorkspace(reposDir, row, root);
        } catch (err) {
          const why = /fetch it there|not in the clone|unable to read/.test((err as Error).message)
            ? `base commit not checked out from the clone of ${row.repo} (missing in the snapshot)`
            : `checkout failed (${row.repo})`;
          note(missing, why, row.instance_id);
          analyses.release(repo);
          continue;
        }
        const checkoutSeconds = (performance.now() - t0) / 1000;
        try {
          const snapshot = await readWorkTree(
            ws.dir,
            analyses.store(repo, () => new DocStore()),
            DEFAULT_LIMITS,
          );
          await each({
            row,
            snapshot,
            gold: goldFiles(row.patch),
            checkoutSeconds,
            cold,
            half: half.get(row.instance_id)!,
          });
          cold = false;
        } finally {
          analyses.release(repo);
          await ws.remove();
        }
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
