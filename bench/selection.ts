import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { shellQuote } from "../src/util/shell-quote.js";
import {
  type GradesFile,
  howToGetData,
  type InstanceInfo,
  isEmptyPatch,
  patchKey,
  readCandidates,
  readGrades,
  readInstances,
  readSources,
  type SourcesFile,
  selectionDataDir,
  setOf,
} from "./selection-data.js";
import {
  type Answer,
  bestSingle,
  type Figure,
  gapClosed,
  type InstanceAnswers,
  naiveVote,
  oracle,
  ownPicked,
  perSystem,
  randomPick,
  ratio,
  selected,
} from "./selection-metrics.js";

/**
 * `npm run bench -- --only selection [--selection-set tuning|held-out|all]`: patch selection measured
 * on other systems' published SWE-bench Lite predictions (selection-data.ts says where they come
 * from and how to get them; nothing is fetched here). Per set of instances (tuning: sympy with an
 * even issue number plus flask and pytest; held-out: sympy with an odd one; all): each system's
 * resolved count and the best of them (chosen knowing the grades, which a user does not), a random
 * pick (expected value, over every system's answer and over the non-empty ones), the oracle (some
 * candidate resolves), a naive vote over whitespace-normalized patches, and `patchloop select`
 * (the model-free selector: normalize, the issue's examples, regression tests, vote) with its CPU
 * time per instance.
 * The selector runs on the set named by --selection-set (default all; tune on `tuning` only), only
 * where the pick matters, into `select/<set>/` of the data folder, whose cached test results a
 * later run reuses (`--fresh` starts over: do that for the CPU figure). `--official-grades` takes
 * the verdict a system published for a patch not graded here.
 * Only instances whose every candidate patch is graded count; the rest are listed as ungraded.
 * `--selection-pool systems|aider-attempts|systems-2026` (default systems) measures one pool of
 * candidates: several systems' runs, one system's own attempts (aider's, up to six per instance;
 * `own_pick` is the attempt aider itself submitted, a selector to compare with), or three systems'
 * runs published in 2026 (POOLS in selection-data.ts);
 * `--selection-sources a,b,...` measures on those runs only.
 */

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const ROOT = resolve(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "patchloop.js");
const DATASET = join(ROOT, "test", "fixtures", "swebench", "swe-bench-lite.test.jsonl");

type SetName = "tuning" | "held-out" | "all";

interface Table {
  names: string[];
  complete: InstanceAnswers[];
  ungraded: string[];
}

/**
 * Each instance's answers, in the sources' order. A patch's verdict is this machine's grade, else
 * (with `official`) the verdict its system published; an instance with a patch graded by neither
 * is left out.
 */
function answersOf(
  dir: string,
  sources: SourcesFile,
  instances: InstanceInfo[],
  grades: GradesFile,
  official: boolean,
): Table {
  const byName = sources.map(
    (s) => new Map(readCandidates(dir, s.name).map((c) => [c.instance_id, c.model_patch])),
  );
  const published = sources.map((s) =>
    official && s.official_resolved ? new Set(s.official_resolved) : undefined,
  );
  const complete: InstanceAnswers[] = [];
  const ungraded: string[] = [];
  for (const inst of instances) {
    const answers: Array<Answer | undefined> = byName.map((m, k) => {
      const patch = m.get(inst.instance_id) ?? "";
      if (isEmptyPatch(patch)) return { patch, resolved: false };
      const ours = grades[inst.instance_id]?.[patchKey(patch)];
      if (ours) return { patch, resolved: ours.resolved, gradedBy: "ours" };
      const theirs = published[k];
      return theirs ? { patch, resolved: theirs.has(inst.instance_id), gradedBy: "official" } : undefined;
    });
    if (answers.some((a) => a === undefined)) ungraded.push(inst.instance_id);
    else complete.push({ instanceId: inst.instance_id, answers: answers as Answer[] });
  }
  return { names: sources.map((s) => s.name), complete, ungraded };
}

/** Instances where some non-empty answer resolves and another does not: only there a pick matters. */
function isMixed(i: InstanceAnswers): boolean {
  const given = i.answers.filter((a) => !isEmptyPatch(a.patch));
  return given.some((a) => a.resolved) && given.some((a) => !a.resolved);
}

function inSet(set: SetName, id: string): boolean {
  return set === "all" || setOf(id) === set;
}

/** CPU seconds of this process's waited-for children so far (the selector and everything it ran). */
function childrenCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // after the command name: field 3 is index 0, so cutime (16) and cstime (17) are 13 and 14
  const ticks = Number(fields[13]) + Number(fields[14]);
  return ticks / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
}

/** What the selector did on one instance where the pick matters. */
interface Decision {
  picked: string | null;
  resolved: boolean;
  reason: string;
}

interface SelectorRun {
  /** Instance -> whether the picked patch resolves it. */
  picked: Map<string, boolean>;
  decisions: Record<string, Decision>;
  /** Instances whose selected patch is none of their candidates' (it should always be one of them). */
  notACandidate: string[];
  cpuSecondsPerInstance: number;
  wallSeconds: number;
  output: string;
}

interface SelectionLine {
  instance_id: string;
  candidates: Array<{ index: number; source: string }>;
  selected: number | null;
  reason: string;
}

/** Runs `patchloop select` over the candidates of `rows`; `unavailable` when the CLI has no select. */
function runSelector(
  dir: string,
  sources: SourcesFile,
  rows: InstanceAnswers[],
  set: SetName,
  pool: string,
  workers: string,
): SelectorRun | { unavailable: string } {
  const help = spawnSync(process.execPath, [BIN, "select", "--help"], { encoding: "utf8" });
  // An unknown command's --help prints the top-level help: look for select's own option.
  if (help.status !== 0 || !help.stdout.includes("--predictions"))
    return {
      unavailable: "patchloop has no select command yet (patchloop select --help does not describe it)",
    };
  if (rows.length === 0)
    return {
      picked: new Map(),
      decisions: {},
      notACandidate: [],
      cpuSecondsPerInstance: 0,
      wallSeconds: 0,
      output: "not run: no instance where the pick matters",
    };
  const work = mkdtempSync(join(tmpdir(), "patchloop-bench-selection-"));
  try {
    const files = sources.map((s, k) => {
      const file = join(work, `${s.name}.jsonl`);
      const lines = rows.map((r) =>
        JSON.stringify({
          instance_id: r.instanceId,
          model_name_or_path: s.name,
          model_patch: r.answers[k]?.patch ?? "",
        }),
      );
      writeFileSync(file, `${lines.join("\n")}\n`);
      return file;
    });
    // One folder per set (and per pool other than the first): selecting again reuses the test
    // results cached there (--fresh: none).
    const out = pool === "systems" ? join(dir, "select", set) : join(dir, "select", pool, set);
    if (process.argv.includes("--fresh")) rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const args = [
      BIN,
      "select",
      "--predictions",
      ...files,
      "-o",
      out,
      "--dataset",
      DATASET,
      "--environment",
      "local",
      "--repos-dir",
      join(dir, "repos"),
      "--python",
      "/usr/bin/python3",
      "--specs",
      join(dir, "specs.json"),
      "-w",
      workers,
      // --selection-config KEY=VALUE (repeatable): config layers for the selector (run.select.*)
      ...process.argv.flatMap((a, i) =>
        a === "--selection-config" && process.argv[i + 1] ? ["-c", process.argv[i + 1] as string] : [],
      ),
    ];
    const cpu0 = childrenCpuSeconds();
    const t0 = process.hrtime.bigint();
    const run = spawnSync(
      "unshare",
      [
        "-rn",
        "bash",
        "-c",
        `ip link set lo up && exec ${shellQuote(process.execPath)} ${args.map(shellQuote).join(" ")}`,
      ],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
    );
    const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = childrenCpuSeconds() - cpu0;
    writeFileSync(join(out, "select-output.txt"), `${run.stdout}\n${run.stderr}`);
    const selectionPath = join(out, "selection.jsonl");
    if (!existsSync(selectionPath))
      throw new Error(
        `patchloop select wrote no ${selectionPath} (exit ${run.status ?? run.signal}): ${run.stderr.slice(-2000)}`,
      );
    const byId = new Map(rows.map((r) => [r.instanceId, r]));
    const picked = new Map<string, boolean>();
    const decisions: Record<string, Decision> = {};
    const notACandidate: string[] = [];
    for (const line of readFileSync(selectionPath, "utf8").split("\n")) {
      if (line.trim().length === 0) continue;
      const rec = JSON.parse(line) as SelectionLine;
      const row = byId.get(rec.instance_id);
      if (!row) continue;
      const source = rec.candidates.find((c) => c.index === rec.selected)?.source;
      const k = source ? files.indexOf(source) : -1;
      if (rec.selected !== null && k < 0) notACandidate.push(rec.instance_id);
      const resolved = k >= 0 && row.answers[k]?.resolved === true;
      picked.set(rec.instance_id, resolved);
      decisions[rec.instance_id] = {
        picked: k >= 0 ? (sources[k]?.name ?? null) : null,
        resolved,
        reason: rec.reason,
      };
    }
    return {
      picked,
      decisions,
      notACandidate,
      cpuSecondsPerInstance: Math.round((cpu / Math.max(1, rows.length)) * 100) / 100,
      wallSeconds: Math.round(wallSeconds * 10) / 10,
      output: out,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function figuresOf(
  table: Table,
  set: SetName,
  picked?: Map<string, boolean>,
  own?: Map<string, boolean>,
): Record<string, unknown> {
  const rows = table.complete.filter((i) => inSet(set, i.instanceId));
  const best = bestSingle(rows);
  const rnd = randomPick(rows, { skipEmpty: false });
  // Where an absent answer means an attempt never made (one system's attempts), the fair random
  // pick is among the answers given; both ratios are printed so neither is computed by hand.
  const rndGiven = randomPick(rows, { skipEmpty: true });
  const top = oracle(rows);
  const vote = naiveVote(rows);
  const counts = perSystem(rows);
  const line = (f: Figure) => ({
    ...f,
    vs_random: ratio(f, rnd),
    vs_random_non_empty: ratio(f, rndGiven),
    gap_closed: gapClosed(f, best.figure, top),
  });
  const selector = picked ? selected(rows, picked) : undefined;
  return {
    instances: rows.length,
    per_system: Object.fromEntries(table.names.map((n, k) => [n, counts[k]])),
    best_single: { system: table.names[best.system], ...line(best.figure) },
    random_pick: rnd,
    random_pick_non_empty: line(rndGiven),
    oracle: line(top),
    naive_vote: line(vote),
    ...(own ? { own_pick: line(selected(rows, own)) } : {}),
    ...(selector ? { selector: line(selector) } : {}),
  };
}

/** Which source's answer each instance's own pick is (empty for whole runs, which record none). */
function ownPickSources(sources: SourcesFile): Map<string, number> {
  const which = new Map<string, number>();
  sources.forEach((s, k) => {
    for (const id of s.own_pick ?? []) which.set(id, k);
  });
  return which;
}

/**
 * This machine's grades against the official harness's, where a source published them: every
 * non-empty patch of that source graded here (also on instances not yet measured whole).
 */
function crossCheck(
  dir: string,
  sources: SourcesFile,
  instances: InstanceInfo[],
  grades: GradesFile,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const s of sources) {
    if (!s.official_resolved) continue;
    const official = new Set(s.official_resolved);
    const patches = new Map(readCandidates(dir, s.name).map((c) => [c.instance_id, c.model_patch]));
    let compared = 0;
    const disagree: string[] = [];
    for (const { instance_id: id } of instances) {
      const patch = patches.get(id) ?? "";
      const ours = isEmptyPatch(patch) ? undefined : grades[id]?.[patchKey(patch)];
      if (!ours) continue;
      compared++;
      if (ours.resolved !== official.has(id))
        disagree.push(`${id}: here ${ours.status}, official ${official.has(id) ? "resolved" : "unresolved"}`);
    }
    result[s.name] = { compared, agree: compared - disagree.length, disagree };
  }
  return result;
}

export function benchSelection(): Record<string, unknown> {
  const dir = selectionDataDir();
  if (!existsSync(join(dir, "instances.json")) || !existsSync(join(dir, "grades.json")))
    return { skipped: howToGetData(dir) };
  const { instances, left_out } = readInstances(dir);
  const published = readSources(dir);
  // --selection-sources a,b,...: measure on those runs only (default: every run prepared)
  const only = arg("--selection-sources")?.split(",");
  const unknown = (only ?? []).filter((n) => !published.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new Error(
      `--selection-sources: no run named ${unknown.join(", ")}; prepared: ${published.map((s) => s.name).join(", ")}`,
    );
  const pool = arg("--selection-pool") ?? "systems";
  if (!published.some((s) => s.pool === pool))
    throw new Error(
      `--selection-pool: no run prepared in pool ${pool}; the pools prepared: ${[...new Set(published.map((s) => s.pool))].join(", ")}`,
    );
  const sources = only
    ? published.filter((s) => only.includes(s.name))
    : published.filter((s) => s.pool === pool);
  const grades = readGrades(dir);
  const official = process.argv.includes("--official-grades");
  const table = answersOf(dir, sources, instances, grades, official);
  const selectorSet = (arg("--selection-set") ?? "all") as SetName;
  if (!["tuning", "held-out", "all"].includes(selectorSet))
    throw new Error(`--selection-set takes tuning, held-out or all; got ${selectorSet}`);
  const inScope = table.complete.filter((i) => inSet(selectorSet, i.instanceId));
  // Where every non-empty answer has the same verdict, any pick of one of them has that verdict:
  // the selector runs only where the pick matters.
  const mixed = inScope.filter(isMixed);
  const sel = runSelector(
    dir,
    sources,
    mixed,
    selectorSet,
    // the named runs' pool when they share one
    new Set(sources.map((s) => s.pool)).size === 1 ? (sources[0]?.pool ?? pool) : "mixed",
    arg("--selection-workers") ?? "2",
  );
  const picked =
    "picked" in sel
      ? new Map([
          ...inScope
            .filter((i) => !isMixed(i))
            .map((i): [string, boolean] => [i.instanceId, i.answers.some((a) => a.resolved)]),
          ...sel.picked,
        ])
      : undefined;
  const sets: SetName[] = selectorSet === "all" ? ["tuning", "held-out", "all"] : [selectorSet];
  const verdicts = table.complete.flatMap((i) => i.answers.filter((a) => a.gradedBy));
  return {
    data: dir,
    pool: only ? "the runs named by --selection-sources" : pool,
    systems: Object.fromEntries(
      sources.map((s) => [s.name, `${s.system} (${s.repo}@${s.commit.slice(0, 10)}:${s.predictions})`]),
    ),
    measured: table.complete.length,
    verdicts: {
      ours: verdicts.filter((a) => a.gradedBy === "ours").length,
      official: verdicts.filter((a) => a.gradedBy === "official").length,
      note: official
        ? "--official-grades: a patch not graded here takes the verdict its system published"
        : "every verdict from patchloop eval on this machine",
    },
    // the instances left out because some candidate patch of theirs has no verdict yet
    ungraded: table.ungraded.length > 10 ? `${table.ungraded.length} instances` : table.ungraded,
    left_out,
    ...Object.fromEntries(
      sets.map((s) => [s, figuresOf(table, s, picked, ownPicked(table.complete, ownPickSources(sources)))]),
    ),
    selector:
      "picked" in sel
        ? {
            set: selectorSet,
            ran_on: `${mixed.length} of ${inScope.length} instances (where some candidate resolves and another does not)`,
            cpu_seconds_per_instance: sel.cpuSecondsPerInstance,
            wall_seconds: sel.wallSeconds,
            picked_patch_not_a_candidate: sel.notACandidate,
            decisions: sel.decisions,
            output: sel.output,
          }
        : sel,
    official_cross_check: crossCheck(dir, sources, instances, grades),
  };
}
