import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { shellQuote } from "../src/util/shell-quote.js";
import {
  type Grade,
  type GradesFile,
  isEmptyPatch,
  patchKey,
  readCandidates,
  readGrades,
  readInstances,
  SOURCES,
  selectionDataDir,
  setOf,
} from "./selection-data.js";

/**
 * `node dist/bench/selection-grade.js --mirrors DIR [-w 2] [--python /usr/bin/python3] [--timeout 600]
 * [--sources NAME,...] [--set tuning|held-out]`:
 * grades every distinct candidate patch of the selection benchmark with `patchloop eval` on this
 * machine (environment `local`, Debian's Python, in a network namespace of its own: `unshare -rn`)
 * and keeps the verdicts in `grades.json`, keyed by instance and the patch's sha256, so equal patches
 * of several systems are graded once and a second run grades only what is missing. DIR holds the
 * repositories' snapshots as `<owner>+<name>/repo`. The instances whose tests are quick go first.
 * `--sources` grades only those sources' patches (e.g. the ones without published verdicts), `--set`
 * only that set's instances (selection-data.ts `setOf`).
 *
 * sympy 1.0 and 1.1 import ABCs from `collections`, which Python 3.10 removed: a `sitecustomize.py`
 * on their PYTHONPATH puts the names back (docs/grading.md, "Known limits").
 */

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** Instances whose tests take longer than this (gold run, seconds) are graded after the others. */
const QUICK_SECONDS = 30;

/** Instances graded together, all their patches before the next ones. */
const BATCH = 8;

const SHIM = `# Old sympy imports ABCs from \`collections\`; Python 3.10 removed those names there.
import collections
import collections.abc

for _name in collections.abc.__all__:
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))
`;

/** The repository folder, the specs file and the shim the eval runs need, made in the data folder. */
function prepareEnvironment(dir: string, mirrors: string): { reposDir: string; specs: string } {
  const reposDir = join(dir, "repos");
  mkdirSync(reposDir, { recursive: true });
  for (const repo of ["sympy/sympy", "pallets/flask", "pytest-dev/pytest"]) {
    const link = join(reposDir, repo.replace("/", "__"));
    const target = join(resolve(mirrors), repo.replace("/", "+"), "repo");
    if (!existsSync(target)) throw new Error(`no snapshot of ${repo} at ${target}: fetch it first`);
    if (!existsSync(link)) symlinkSync(target, link);
  }
  const shimDir = join(dir, "shim");
  mkdirSync(shimDir, { recursive: true });
  writeFileSync(join(shimDir, "sitecustomize.py"), SHIM);
  const shimmed = { local: { pythonpath: [".", shimDir] } };
  const specs = join(dir, "specs.json");
  writeFileSync(
    specs,
    `${JSON.stringify({ "sympy/sympy": { versions: { "1.0": shimmed, "1.1": shimmed } } }, null, 2)}\n`,
  );
  return { reposDir, specs };
}

interface Summary {
  patchloop: {
    resolutions: Record<string, string>;
    patch_apply_failed_ids: string[];
    timeout_ids: string[];
    environment_mismatch_ids: string[];
    infrastructure_error_ids: string[];
    no_results_ids: string[];
    errors: Record<string, unknown>;
  };
}

/** A verdict from the run summary; undefined for an infrastructure error (not kept: graded again next time). */
function verdictOf(summary: Summary, id: string, report: string): Grade | undefined {
  const p = summary.patchloop;
  const status = p.resolutions[id]
    ? p.resolutions[id]
    : p.patch_apply_failed_ids.includes(id)
      ? "patch_not_applied"
      : p.timeout_ids.includes(id)
        ? "timeout"
        : p.environment_mismatch_ids.includes(id)
          ? "environment_mismatch"
          : p.no_results_ids.includes(id)
            ? "no_results"
            : undefined;
  if (!status) return undefined;
  return { status, resolved: status === "RESOLVED_FULL", report };
}

function saveGrades(dir: string, grades: GradesFile): void {
  const path = join(dir, "grades.json");
  writeFileSync(`${path}.tmp`, `${JSON.stringify(grades, null, 1)}\n`);
  renameSync(`${path}.tmp`, path);
}

function main(): void {
  const mirrors = arg("--mirrors");
  if (!mirrors) {
    process.stderr.write(
      "usage: selection-grade.js --mirrors DIR [-w 2] [--python /usr/bin/python3] [--timeout 600] [--sources NAME,...] [--set tuning|held-out]\n",
    );
    process.exit(2);
  }
  const dir = selectionDataDir();
  const set = arg("--set");
  if (set !== undefined && set !== "tuning" && set !== "held-out")
    throw new Error(`--set takes tuning or held-out; got ${set}`);
  const instances = readInstances(dir).instances.filter((i) => !set || setOf(i.instance_id) === set);
  const { reposDir, specs } = prepareEnvironment(dir, mirrors);
  const grades = readGrades(dir);
  const only = arg("--sources")?.split(",");
  const unknown = only?.filter((n) => !SOURCES.some((s) => s.name === n)) ?? [];
  if (unknown.length > 0)
    throw new Error(
      `--sources: no source named ${unknown.join(", ")}; the sources are ${SOURCES.map((s) => s.name).join(", ")}`,
    );
  const candidates = SOURCES.filter((s) => !only || only.includes(s.name)).map(
    (s) => new Map(readCandidates(dir, s.name).map((c) => [c.instance_id, c.model_patch])),
  );
  // Per instance, its distinct non-empty patches not graded yet, in source order.
  const todo = new Map<string, string[]>();
  for (const inst of instances) {
    const seen = new Set<string>();
    const patches: string[] = [];
    for (const byId of candidates) {
      const patch = byId.get(inst.instance_id) ?? "";
      const key = patchKey(patch);
      if (isEmptyPatch(patch) || seen.has(key) || grades[inst.instance_id]?.[key]) continue;
      seen.add(key);
      patches.push(patch);
    }
    if (patches.length > 0) todo.set(inst.instance_id, patches);
  }
  const total = [...todo.values()].reduce((n, p) => n + p.length, 0);
  process.stdout.write(`${total} patches to grade over ${todo.size} instances\n`);
  const bin = resolve(import.meta.dirname, "..", "..", "bin", "patchloop.js");
  const dataset = resolve(
    import.meta.dirname,
    "..",
    "..",
    "test",
    "fixtures",
    "swebench",
    "swe-bench-lite.test.jsonl",
  );
  // Batches of a few instances, every distinct patch of a batch graded before the next batch starts,
  // so a run stopped early leaves whole instances graded; quick instances first.
  const ordered = [
    ...instances.filter((i) => i.test_seconds <= QUICK_SECONDS),
    ...instances.filter((i) => i.test_seconds > QUICK_SECONDS),
  ].filter((i) => todo.has(i.instance_id));
  for (let b = 0; b < ordered.length; b += BATCH) {
    const group = ordered.slice(b, b + BATCH);
    for (let round = 0; ; round++) {
      const preds = group
        .filter((i) => (todo.get(i.instance_id)?.length ?? 0) > round)
        .map((i) => ({
          instance_id: i.instance_id,
          model_name_or_path: "selbench",
          model_patch: todo.get(i.instance_id)?.[round] ?? "",
        }));
      if (preds.length === 0) break;
      const text = JSON.stringify(preds);
      const runId = `r${round}-${createHash("sha256").update(text).digest("hex").slice(0, 10)}`;
      const input = join(dir, "eval-input", `${runId}.json`);
      mkdirSync(join(dir, "eval-input"), { recursive: true });
      writeFileSync(input, text);
      const evalArgs = [
        bin,
        "eval",
        "--predictions",
        input,
        "--dataset",
        dataset,
        "--environment",
        "local",
        "--repos-dir",
        reposDir,
        "--python",
        arg("--python", "/usr/bin/python3") as string,
        "--specs",
        specs,
        "--timeout",
        arg("--timeout", "600") as string,
        "--env-check-cache",
        join(dir, "env-checks"),
        "-w",
        arg("-w", "2") as string,
        "--run-id",
        runId,
        "-o",
        join(dir, "eval"),
      ];
      process.stdout.write(`\n== ${runId}: ${preds.length} patches\n`);
      const run = spawnSync(
        "unshare",
        [
          "-rn",
          "bash",
          "-c",
          `ip link set lo up && exec ${shellQuote(process.execPath)} ${evalArgs.map(shellQuote).join(" ")}`,
        ],
        { stdio: "inherit" },
      );
      const summaryPath = join(dir, "eval", runId, `selbench.${runId}.json`);
      if (!existsSync(summaryPath))
        throw new Error(
          `patchloop eval wrote no summary at ${summaryPath} (exit ${run.status ?? run.signal}); see its output above`,
        );
      const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as Summary;
      for (const p of preds) {
        const verdict = verdictOf(summary, p.instance_id, `${runId}/${p.instance_id}`);
        if (!verdict) {
          process.stdout.write(
            `${p.instance_id}: not graded (${JSON.stringify(summary.patchloop.errors[p.instance_id] ?? "")}); left for the next run\n`,
          );
          continue;
        }
        grades[p.instance_id] ??= {};
        grades[p.instance_id][patchKey(p.model_patch)] = verdict;
      }
      saveGrades(dir, grades);
    }
  }
}

main();
