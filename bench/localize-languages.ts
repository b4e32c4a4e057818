import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fileLanguages } from "../src/localize/languages.js";
import { localize } from "../src/localize/localize.js";
import { readWorkTree } from "../src/localize/read-worktree.js";
import { repoAnalyses } from "../src/localize/repo-analyses.js";
import { DEFAULT_LIMITS, DocStore } from "../src/localize/repo-files.js";
import { arg } from "./localize-data.js";

/**
 * `npm run bench -- --only localize --lang-repos DIR[,DIR...]`: localization on repositories
 * beyond Python, each a git repository (a clone, or a bare snapshot) checked out at its HEAD
 * into a temporary folder. There are no gold patches here, so the issues are made from the
 * repository itself: for each of up to 20 definitions (functions, methods and types whose name
 * one source file defines, spread over the repository), the issue "`Name` gives a wrong result",
 * whose answer is that file. The figures say what the languages' definitions cost and whether they
 * reach the ranking at a real repository's size, not how well real issues are localized:
 * - files read, per language, and what was skipped;
 * - hit@1 and @5 of the defining file;
 * - seconds per localization (reading the checkout into the repository's analyses and ranking;
 *   the first reads and analyses every file, the later ones reuse them), in one process per
 *   repository as `patchloop localize` runs a repository's rows: retained once per issue,
 *   released after each;
 * - that process's peak RSS (VmHWM), and its heap once the last release dropped the analyses
 *   (after a full GC).
 */

interface Target {
  name: string;
  path: string;
}

interface LanguageRun {
  repo: string;
  head: string;
  files: number;
  per_language: Record<string, number>;
  skipped: { binary: number; huge: number; unreadable: number };
  issues: number;
  "hit@1": number;
  "hit@5": number;
  seconds_first: number;
  seconds_mean_after_first: number;
  seconds_max: number;
  peak_rss_mb: number;
  heap_after_release_mb: number;
  held_after_release: string[];
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const round = (x: number) => Math.round(x * 1000) / 1000;
const ISSUES = 20;

const issueText = (name: string) =>
  `\`${name}\` gives a wrong result\n\nCalling ${name} with an empty value returns something else than the documentation says.`;

function git(args: string[]): string {
  const r = spawnSync("git", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** The definitions the issues are about: one source file defines each name; spread over the files. */
async function targetsOf(dir: string): Promise<Target[]> {
  const snapshot = await readWorkTree(dir, new DocStore(), DEFAULT_LIMITS);
  const languages = fileLanguages(snapshot.files);
  const definedIn = new Map<string, Set<string>>();
  for (const [i, f] of snapshot.files.entries()) {
    const language = languages[i];
    if (language === undefined || f.kind !== "source") continue;
    for (const d of await f.doc.defsIn(language)) {
      if (d.local || d.kind === "variable" || d.name.length < 6 || !/[A-Z_]/.test(d.name.slice(1))) continue;
      const files = definedIn.get(d.name) ?? new Set();
      files.add(f.path);
      definedIn.set(d.name, files);
    }
  }
  const unique = [...definedIn]
    .filter(([, files]) => files.size === 1)
    .map(([name, files]) => ({ name, path: [...files][0] }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.name < b.name ? -1 : 1));
  const step = Math.max(1, Math.floor(unique.length / ISSUES));
  return unique.filter((_, k) => k % step === 0).slice(0, ISSUES);
}

/** The child: localizes every target's issue in one process, as a repository's rows are. */
async function child(dir: string, targetsFile: string): Promise<void> {
  const targets = JSON.parse(readFileSync(targetsFile, "utf8")) as Target[];
  const repo = basename(dir);
  const analyses = repoAnalyses();
  analyses.retain(repo, targets.length);
  const seconds: number[] = [];
  const ranks: number[] = [];
  for (const t of targets) {
    const t0 = performance.now();
    const snapshot = await readWorkTree(
      dir,
      analyses.store(repo, () => new DocStore()),
      DEFAULT_LIMITS,
    );
    const r = await localize(issueText(t.name), snapshot, { topK: 10, topSymbols: 5 });
    seconds.push((performance.now() - t0) / 1000);
    ranks.push(r.files.findIndex((f) => f.path === t.path) + 1);
    analyses.release(repo);
  }
  (globalThis as { gc?: () => void }).gc?.();
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  process.stdout.write(
    `${JSON.stringify({
      ranks,
      seconds,
      peak_rss_mb: Math.round(hwm / 1024),
      heap_after_release_mb: mb(process.memoryUsage().heapUsed),
      held_after_release: analyses.held().map((h) => h.repo),
    })}\n`,
  );
}

function runChild(dir: string, targetsFile: string): Record<string, unknown> {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ["--expose-gc", self, "--languages-child", dir, targetsFile], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{"))
    throw new Error(`exit ${r.status}: ${(r.stderr || r.stdout).trim().slice(-500)}`);
  return JSON.parse(line) as Record<string, unknown>;
}

async function benchOne(source: string): Promise<LanguageRun | { repo: string; error: string }> {
  const repo = basename(source.replace(/\/(?:repo|\.git)\/?$/, "")) || source;
  const work = await mkdtemp(join(tmpdir(), "patchloop-bench-lang-"));
  try {
    const dir = join(work, repo);
    git(["clone", "-q", "--shared", "--no-tags", resolve(source), dir]);
    const head = git(["-C", dir, "rev-parse", "--short=12", "HEAD"]);
    const snapshot = await readWorkTree(dir, new DocStore(), DEFAULT_LIMITS);
    const perLanguage: Record<string, number> = {};
    for (const l of fileLanguages(snapshot.files)) {
      const key = l ?? "text";
      perLanguage[key] = (perLanguage[key] ?? 0) + 1;
    }
    const targets = await targetsOf(dir);
    const targetsFile = join(work, "targets.json");
    await writeFile(targetsFile, JSON.stringify(targets));
    const out = runChild(dir, targetsFile) as {
      ranks: number[];
      seconds: number[];
      peak_rss_mb: number;
      heap_after_release_mb: number;
      held_after_release: string[];
    };
    const hit = (k: number) =>
      round(out.ranks.filter((r) => r > 0 && r <= k).length / (out.ranks.length || 1));
    const later = out.seconds.slice(1);
    return {
      repo,
      head,
      files: snapshot.files.length,
      per_language: perLanguage,
      skipped: snapshot.skipped,
      issues: targets.length,
      "hit@1": hit(1),
      "hit@5": hit(5),
      seconds_first: round(out.seconds[0] ?? 0),
      seconds_mean_after_first: round(later.reduce((a, b) => a + b, 0) / (later.length || 1)),
      seconds_max: round(Math.max(0, ...out.seconds)),
      peak_rss_mb: out.peak_rss_mb,
      heap_after_release_mb: out.heap_after_release_mb,
      held_after_release: out.held_after_release,
    };
  } catch (err) {
    return { repo, error: (err as Error).message };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The section's figures, one repository after the other (`--lang-repos`, comma-separated). */
export async function benchLocalizeLanguages(): Promise<Record<string, unknown>> {
  const list = (arg("--lang-repos") ?? "").split(",").filter(Boolean);
  const out: Record<string, unknown> = {
    note: "issues made from each repository's own definitions (one source file defines the name); one process per repository, retained per issue and released after it",
  };
  for (const source of list) {
    const r = await benchOne(source);
    out[r.repo] = r;
  }
  return out;
}

const childDir = arg("--languages-child");
if (childDir) await child(childDir, process.argv[process.argv.indexOf("--languages-child") + 2]);
