import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { instanceReader, localizeRow } from "../src/cli/localize-instance.js";
import { loadConfig } from "../src/config/load.js";
import { cloneDirFor } from "../src/instance/workspace.js";
import { makeWorkspaceRoot } from "../src/instance/workspace-root.js";
import { repoAnalyses } from "../src/localize/repo-analyses.js";
import { DEFAULT_LIMITS } from "../src/localize/repo-files.js";
import { arg, selectedRows } from "./localize-data.js";

/**
 * The memory of localizing many repositories in one process, as `patchloop localize` does it: the
 * selected rows whose clone is in `--repos-dir`, in dataset order, each read from a fresh checkout
 * (instance.ts) into its repository's analyses (repo-analyses.ts), one process per way of keeping
 * them, so that each peak is its own:
 * - `release`: every row retained at the start, released when it is done (the CLI's way);
 * - `keep`: retained and never released, every repository's analyses held to the end (what one
 *   process kept before repositories were dropped).
 * Peak RSS is VmHWM (the high-water mark of the process's resident memory).
 */

interface MemoryRun {
  rows: number;
  peak_rss_mb: number;
  /** RSS after each repository's last row, in the order they ended. */
  rss_after_repository_mb: Record<string, number>;
  /** Repositories whose analyses were still held at the end. */
  held_at_end: string[];
}

const mb = (kib: number) => Math.round(kib / 1024);

/** The child: localizes the rows and prints one JSON line ({@link MemoryRun}). */
async function child(keep: boolean): Promise<void> {
  const reposDir = resolve(arg("--repos-dir")!);
  const rows = (await selectedRows()).filter((r) => existsSync(cloneDirFor(reposDir, r.repo)));
  const last = new Map(rows.map((r, i) => [r.repo, i]));
  const analyses = repoAnalyses();
  for (const r of rows) analyses.retain(r.repo);
  const root = await makeWorkspaceRoot();
  // with --repos-dir the checkouts are read on this machine, whatever the config's environment
  const { config } = loadConfig({ configArgs: [], defaultConfig: "swebench" });
  const read = instanceReader(config, { reposDir, workRoot: root }, DEFAULT_LIMITS);
  const after: Record<string, number> = {};
  try {
    for (const [i, row] of rows.entries()) {
      await localizeRow(row, read, { topK: 10, topSymbols: 5 });
      if (!keep) analyses.release(row.repo);
      if (last.get(row.repo) === i) after[row.repo] = mb(process.memoryUsage().rss / 1024);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  const out: MemoryRun = {
    rows: rows.length,
    peak_rss_mb: mb(hwm),
    rss_after_repository_mb: after,
    held_at_end: analyses.held().map((h) => h.repo),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runChild(mode: "release" | "keep"): MemoryRun | { error: string } {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, "--memory-child", mode, ...process.argv.slice(2)], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{"))
    return { error: `exit ${r.status}: ${(r.stderr || r.stdout).trim().slice(-500)}` };
  return JSON.parse(line) as MemoryRun;
}

/** Both ways over the same rows, and the peak of `keep` over the peak of `release`. */
export function benchLocalizeMemory(): Record<string, unknown> {
  const release = runChild("release");
  const keep = runChild("keep");
  return {
    note: "one process per way over the same rows, as `patchloop localize` reads them; peak RSS is VmHWM",
    release,
    keep_every_repository: keep,
    keep_over_release:
      "peak_rss_mb" in release && "peak_rss_mb" in keep
        ? Math.round((keep.peak_rss_mb / release.peak_rss_mb) * 100) / 100
        : null,
  };
}

const mode = arg("--memory-child");
if (mode === "release" || mode === "keep") await child(mode === "keep");
