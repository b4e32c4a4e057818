import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { shellQuote } from "../src/tools/shell-quote.js";
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
  bestSingle,
  type Figure,
  gapClosed,
  type InstanceAnswers,
  naiveVote,
  oracle,
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
 * (the model-free selector: normalize, regression tests, vote) with its CPU time per instance.
 * The selector runs on the set named by --selection-set (default all); tune on `tuning` only.
 * Only instances whose every candidate patch is graded count; the rest are listed as ungraded.
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

/** Each instance's answers, in the sources' order; an instance with an ungraded patch is left out. */
function answersOf(dir: string, sources: SourcesFile, instances: InstanceInfo[], grades: GradesFile): Table {
  const byName = sources.map(
    (s) => new Map(readCandidates(dir, s.name).map((c) => [c.instance_id, c.model_patch])),
  );
  const complete: InstanceAnswers[] = [];
  const ungraded: string[] = [];
  for (const inst of instances) {
    const patches = byName.map((m) => m.get(inst.instance_id) ?? "");
    const verdicts = patches.map((p) =>
      isEmptyPatch(p) ? { resolved: false } : grades[inst.instance_id]?.[patchKey(p)],
    );
    if (verdicts.some((v) => v === undefined)) {
      ungraded.push(inst.instance_id);
      continue;
    }
    complete.push({
      instanceId: inst.instance_id,
      answers: patches.map((patch, k) => ({ patch, resolved: verdicts[k]?.resolved === true })),
    });
  }
  return { names: sources.map((s) => s.name), complete, ungraded };
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

interface SelectorRun {
  picked: Map<string, boolean>;
  /** Instances whose selected patch is not one of the graded candidates. */
  notACandidate: string[];
  cpuSecondsPerInstance: number;
  wallSeconds: number;
  output: string;
}

/** Runs `patchloop select` over the candidates of the given instances; undefined when the CLI has no select. */
function runSelector(
  dir: string,
  sources: SourcesFile,
  ids: Set<string>,
  grades: GradesFile,
  workers: string,
): SelectorRun | { unavailable: string } {
  const help = spawnSync(process.execPath, [BIN, "select", "--help"], { encoding: "utf8" });
  // An unknown command's --help prints the top-level help: look for select's own option.
  if (help.status !== 0 || !help.stdout.includes("--predictions"))
    return {
      unavailable: "patchloop has no select command yet (patchloop select --help does not describe it)",
    };
  const work = mkdtempSync(join(tmpdir(), "patchloop-bench-selection-"));
  try {
    const files = sources.map((s) => {
      const file = join(work, `${s.name}.jsonl`);
      const rows = readCandidates(dir, s.name).filter((c) => ids.has(c.instance_id));
      writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
      return file;
    });
    const out = join(dir, "select", `run-${new Date().toISOString().replace(/[:.]/g, "-")}`);
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
    const predsPath = join(out, "preds.json");
    if (!existsSync(predsPath))
      throw new Error(
        `patchloop select wrote no ${predsPath} (exit ${run.status ?? run.signal}): ${run.stderr.slice(-2000)}`,
      );
    const preds = JSON.parse(readFileSync(predsPath, "utf8")) as unknown;
    const rows = (Array.isArray(preds) ? preds : Object.values(preds as Record<string, unknown>)) as Array<{
      instance_id: string;
      model_patch: string | null;
    }>;
    const picked = new Map<string, boolean>();
    const notACandidate: string[] = [];
    for (const r of rows) {
      const patch = r.model_patch ?? "";
      if (isEmptyPatch(patch)) continue;
      const grade = grades[r.instance_id]?.[patchKey(patch)];
      if (!grade) notACandidate.push(r.instance_id);
      picked.set(r.instance_id, grade?.resolved === true);
    }
    return {
      picked,
      notACandidate,
      cpuSecondsPerInstance: Math.round((cpu / Math.max(1, ids.size)) * 100) / 100,
      wallSeconds: Math.round(wallSeconds * 10) / 10,
      output: out,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function figuresOf(table: Table, set: SetName, picked?: Map<string, boolean>): Record<string, unknown> {
  const rows = table.complete.filter((i) => inSet(set, i.instanceId));
  const best = bestSingle(rows);
  const rnd = randomPick(rows, { skipEmpty: false });
  const top = oracle(rows);
  const vote = naiveVote(rows);
  const counts = perSystem(rows);
  const line = (f: Figure) => ({
    ...f,
    vs_random: ratio(f, rnd),
    gap_closed: gapClosed(f, best.figure, top),
  });
  const selector = picked ? selected(rows, picked) : undefined;
  return {
    instances: rows.length,
    per_system: Object.fromEntries(table.names.map((n, k) => [n, counts[k]])),
    best_single: { system: table.names[best.system], ...line(best.figure) },
    random_pick: rnd,
    random_pick_non_empty: line(randomPick(rows, { skipEmpty: true })),
    oracle: line(top),
    naive_vote: line(vote),
    ...(selector ? { selector: line(selector) } : {}),
  };
}

/** Our grades against the official harness's, where a source published them. */
function crossCheck(table: Table, sources: SourcesFile): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  sources.forEach((s, k) => {
    if (!s.official_resolved) return;
    const official = new Set(s.official_resolved);
    const disagree: string[] = [];
    for (const i of table.complete) {
      const ours = i.answers[k]?.resolved === true;
      if (ours !== official.has(i.instanceId))
        disagree.push(
          `${i.instanceId}: ours ${ours ? "resolved" : "unresolved"}, official ${ours ? "unresolved" : "resolved"}`,
        );
    }
    result[s.name] = {
      compared: table.complete.length,
      agree: table.complete.length - disagree.length,
      disagree,
    };
  });
  return result;
}

export function benchSelection(): Record<string, unknown> {
  const dir = selectionDataDir();
  if (!existsSync(join(dir, "instances.json")) || !existsSync(join(dir, "grades.json")))
    return { skipped: howToGetData(dir) };
  const { instances, left_out } = readInstances(dir);
  const sources = readSources(dir);
  const grades = readGrades(dir);
  const table = answersOf(dir, sources, instances, grades);
  const selectorSet = (arg("--selection-set") ?? "all") as SetName;
  if (!["tuning", "held-out", "all"].includes(selectorSet))
    throw new Error(`--selection-set takes tuning, held-out or all; got ${selectorSet}`);
  const ids = new Set(table.complete.map((i) => i.instanceId).filter((id) => inSet(selectorSet, id)));
  const sel = runSelector(dir, sources, ids, grades, arg("--selection-workers") ?? "2");
  const picked = "picked" in sel ? sel.picked : undefined;
  const sets: SetName[] = selectorSet === "all" ? ["tuning", "held-out", "all"] : [selectorSet];
  return {
    data: dir,
    systems: Object.fromEntries(
      sources.map((s) => [s.name, `${s.system} (${s.repo}@${s.commit.slice(0, 10)}:${s.predictions})`]),
    ),
    measured: table.complete.length,
    // the instances left out because some candidate patch of theirs has no grade yet
    ungraded: table.ungraded.length > 10 ? `${table.ungraded.length} instances` : table.ungraded,
    left_out,
    ...Object.fromEntries(sets.map((s) => [s, figuresOf(table, s, picked)])),
    selector:
      "picked" in sel
        ? {
            set: selectorSet,
            cpu_seconds_per_instance: sel.cpuSecondsPerInstance,
            wall_seconds: sel.wallSeconds,
            picked_patch_not_a_graded_candidate: sel.notACandidate,
            output: sel.output,
          }
        : sel,
    official_cross_check: crossCheck(table, sources),
  };
}
