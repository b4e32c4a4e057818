import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";

/**
 * The data of the selection benchmark: other systems' published SWE-bench Lite predictions on the
 * instances that grade on this machine, and each distinct patch's grade. Nothing here is in the
 * repository or needed by CI: `selection-prepare.ts` writes the candidates from fetched snapshots,
 * `selection-grade.ts` grades them with `patchloop eval`, `selection.ts` (the bench section) reads
 * both. The folder is `$PATCHLOOP_SELECTION_DATA`, else `~/.cache/patchloop-bench/selection`.
 */

export const SELECTION_DATA_ENV = "PATCHLOOP_SELECTION_DATA";

export function selectionDataDir(): string {
  const fromEnv = process.env[SELECTION_DATA_ENV];
  return resolve(
    fromEnv && fromEnv.length > 0 ? fromEnv : join(homedir(), ".cache", "patchloop-bench", "selection"),
  );
}

/**
 * The candidate pools, measured one at a time: `systems`, six published runs of four systems (the
 * pool the selector was built on; its held-out instances have been read); `aider-attempts`, one
 * system's own attempts; `systems-2026`, three systems' runs published in 2026, added after the
 * selector's rules were fixed and never read before their one held-out measurement.
 */
export const POOLS = ["systems", "aider-attempts", "systems-2026"] as const;
export type Pool = (typeof POOLS)[number];

/** One published run: where its predictions (and, when published beside them, its official grades) are. */
export interface Source {
  /** Short name, also the candidate file's name (`candidates/<name>.jsonl`). */
  name: string;
  /** What the run is, in words. */
  system: string;
  /** GitHub `owner/name`. */
  repo: string;
  commit: string;
  /** The predictions file inside the repository (.json list or .jsonl). */
  predictions: string;
  /** The official report beside them, when there is one: a JSON object with a `resolved` id list. */
  officialReport?: string;
  /**
   * For a run that keeps every attempt of an instance in one file per instance (aider's
   * `<predictions>/<instance_id>.json`, whose `all_results` lists its attempts in the order made):
   * this source is the attempt at this position (1-based); an instance with fewer attempts has none.
   */
  attempt?: number;
  /**
   * The candidate pool the source belongs to: the bench measures one pool at a time (default
   * `systems`), since the pools are different questions (several systems' runs; one system's attempts).
   */
  pool: Pool;
  /**
   * The run's file has a line for every Lite instance (an empty patch where it had none), so a
   * measured instance missing from it means the file read is not the whole run (a broken copy),
   * not an empty answer: preparing stops there.
   */
  complete?: boolean;
}

/**
 * The runs used: three systems built on GPT-4 (CodeR, AutoCodeRover in three runs, SWE-agent),
 * and a fourth on another model family: an Agentless fork's Gemini run (Dylan-Harden3/Agentless,
 * graded here: no verdicts were published with it). CodeR's and AutoCodeRover's repositories
 * publish the official harness's verdicts beside the predictions. The first five are the set the
 * selector was first measured on (`--selection-sources` picks a subset).
 */
export const SOURCES: readonly Source[] = [
  {
    name: "coder",
    system: "CodeR (GPT-4), 2024-06-04",
    repo: "NL2Code/CodeR",
    commit: "d63468344bc215bbabb8f0c1ba4af24897a946df",
    predictions: "all_preds.jsonl",
    officialReport: "results.json",
    pool: "systems",
  },
  ...[1, 2, 3].map((k) => ({
    name: `acr-run-${k}`,
    system: `AutoCodeRover (GPT-4-0125), run ${k} of 3`,
    repo: "nus-apr/auto-code-rover",
    commit: "3536ac292e3062ffb3f6e98457958e2b803228d6",
    predictions: `results/acr-run-${k}/predictions_for_swebench.json`,
    officialReport: `results/acr-run-${k}/new_eval_results/report.json`,
    pool: "systems" as const,
  })),
  {
    name: "swe-agent",
    system: "SWE-agent (GPT-4), Lite default config (instances with an empty patch are absent)",
    repo: "ivan4722/csvtransfer",
    commit: "9039a5db8b617ae6cf2c63bc08c295958c8a4968",
    predictions: "all_preds.jsonl",
    pool: "systems",
  },
  {
    name: "agentless-gemini",
    system: "Agentless (a fork's Gemini run), 2025-03-26",
    repo: "Dylan-Harden3/Agentless",
    commit: "5ee14300ed71fea91f29a41601c97696024d2f51",
    predictions: "all_preds.jsonl",
    pool: "systems",
  },
  // A second pool, measured apart: one system's own attempts. Aider's Lite run made up to six per
  // instance, GPT-4o and Claude 3 Opus in turn, stopping at the first its own checks found plausible
  // (so a later attempt exists only where the earlier ones failed those checks). No verdict per
  // attempt was published (only of the one aider picked): every attempt is graded here.
  ...[1, 2, 3, 4, 5, 6].map((k) => ({
    name: `aider-${k}`,
    system: `Aider (GPT-4o and Claude 3 Opus in turn), attempt ${k} of up to 6`,
    repo: "paul-gauthier/aider-swe-bench",
    commit: "6e98cd6c3b2cbcba12976d6ae1b07f847480cb74",
    predictions: "predictions/multi-models--gpt-4o--openrouter-anthropic-claude-3-opus",
    attempt: k,
    pool: "aider-attempts" as const,
  })),
  // A third pool, measured apart: three systems whose runs were published in 2026, none of whose
  // candidates (nor any figure on them) had been read when the rules were fixed (docs/selection.md).
  {
    name: "daemon",
    system: "Daemon (20260923_Daemon), pass@1, 57.67% of Lite as published",
    repo: "Kapozux/daemon-swebench-lite",
    commit: "d0ecf021b4947643485e148bb5b92ba7fec035ee",
    predictions: "all_preds.jsonl",
    pool: "systems-2026",
    complete: true,
  },
  {
    name: "kimi-k3",
    system: "a kimi-k3 agent run (lite-full-r3, 2026-09-13), pass@1, 88.7% of Lite as published",
    repo: "ZhangShenao/swebench-lite-20260913",
    commit: "6d7c10094d315bdd91324bc94f984f7676b2656c",
    predictions: "all_preds.jsonl",
    pool: "systems-2026",
    complete: true,
  },
  {
    name: "repograph-deepseek",
    system: "RepoGraph on Agentless with DeepSeek V4 Pro (a reproduction, 2026-07), its first sample",
    repo: "QianhanOfficial/RepoGraph",
    commit: "f36a9f4e96dc35fdcedc5a2f4ad511fcb736756d",
    // The run's all_preds.jsonl has empty patches: its report says the patches are in the
    // `improved` files, and only sample 0 has any.
    predictions: "results/repair/output_0_improved.jsonl",
    pool: "systems-2026",
  },
];

export const Candidate = z.object({
  instance_id: z.string().min(1),
  model_name_or_path: z.string(),
  model_patch: z.string(),
});
export type Candidate = z.infer<typeof Candidate>;

export const InstanceInfo = z.object({
  instance_id: z.string().min(1),
  repo: z.string(),
  version: z.string(),
  /** Seconds the gold patch's test run took in the feasibility sweep (how long grading one patch takes). */
  test_seconds: z.number().nonnegative(),
});
export type InstanceInfo = z.infer<typeof InstanceInfo>;

/** `instances.json`: the instances measured, and the ones left out with the reason. */
export const InstancesFile = z.object({
  instances: z.array(InstanceInfo),
  left_out: z.array(z.object({ instance_id: z.string(), reason: z.string() })),
});
export type InstancesFile = z.infer<typeof InstancesFile>;

/** `sources.json`: per source, the instances its official report resolves (only measured ones). */
export const SourcesFile = z.array(
  z.object({
    name: z.string(),
    system: z.string(),
    repo: z.string(),
    commit: z.string(),
    predictions: z.string(),
    /** Absent in a file written before pools existed: those sources were all `systems`. */
    pool: z.enum(POOLS).default("systems"),
    /** Where the file was read from when no snapshot could be fetched: a copy's path; null for a snapshot. */
    copy: z.string().nullable().default(null),
    official_resolved: z.array(z.string()).nullable(),
    /**
     * For one attempt of a system that keeps them all: the instances where this attempt is the one
     * the system itself submitted (its own selection, measured beside ours); null for a whole run.
     */
    own_pick: z.array(z.string()).nullable().default(null),
  }),
);
export type SourcesFile = z.infer<typeof SourcesFile>;

/** The grade of one distinct patch: what `patchloop eval` said of it. */
export const Grade = z.object({
  /** RESOLVED_FULL, RESOLVED_PARTIAL, RESOLVED_NO, or why it was not graded (patch_not_applied, error: ...). */
  status: z.string(),
  resolved: z.boolean(),
  /** Where the report is: `<eval run id>/<instance id>` under `eval/`. */
  report: z.string(),
});
export type Grade = z.infer<typeof Grade>;

/** `grades.json`: instance id -> patch hash -> grade. */
export const GradesFile = z.record(z.string(), z.record(z.string(), Grade));
export type GradesFile = z.infer<typeof GradesFile>;

/** The key of a patch in `grades.json`: sha256 of its exact text. */
export function patchKey(patch: string): string {
  return createHash("sha256").update(patch).digest("hex");
}

/** A patch that changes nothing counts as no answer (the harness does not run it either). */
export function isEmptyPatch(patch: string): boolean {
  return patch.trim().length === 0;
}

/** Tuning: sympy with an even issue number, and every non-sympy instance; held out: odd sympy. */
export function setOf(instanceId: string): "tuning" | "held-out" {
  const m = /^sympy__sympy-(\d+)$/.exec(instanceId);
  return m && Number(m[1]) % 2 === 1 ? "held-out" : "tuning";
}

function readJson<T>(path: string, schema: z.ZodType<T, unknown>, what: string): T {
  const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new Error(
      `${path} is not a valid ${what}: ${parsed.error.issues[0]?.message}; run the step that writes it again`,
    );
  return parsed.data;
}

export function readInstances(dir: string): InstancesFile {
  return readJson(join(dir, "instances.json"), InstancesFile, "instances file");
}

export function readSources(dir: string): SourcesFile {
  return readJson(join(dir, "sources.json"), SourcesFile, "sources file");
}

export function readGrades(dir: string): GradesFile {
  const path = join(dir, "grades.json");
  return existsSync(path) ? readJson(path, GradesFile, "grades file") : {};
}

export function candidatesPath(dir: string, name: string): string {
  return join(dir, "candidates", `${name}.jsonl`);
}

/** A candidate file: one prediction a line, one line per measured instance (empty patch when the run had none). */
export function readCandidates(dir: string, name: string): Candidate[] {
  return readFileSync(candidatesPath(dir, name), "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l, i) => {
      const parsed = Candidate.safeParse(JSON.parse(l));
      if (!parsed.success)
        throw new Error(`${candidatesPath(dir, name)} line ${i + 1}: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });
}

/** What to do when the data is absent: the steps, in order. */
export function howToGetData(dir: string): string {
  return [
    `no selection data in ${dir} (set ${SELECTION_DATA_ENV} to use another folder). To make it:`,
    `1. fetch the snapshots of ${[...new Set(SOURCES.map((s) => s.repo))].join(", ")}, sympy/sympy, pallets/flask and pytest-dev/pytest (the session's fetch tool puts them under /work/.mirror/<owner>+<name>/repo);`,
    "2. npm run build && node dist/bench/selection-prepare.js --mirrors /work/.mirror --feasibility FILE [--copies DIR] (feasibility-lite-local.tsv: the instances that grade on this machine; --copies: a folder with copies of the files of repositories that could not be fetched, as <owner>+<name>@<commit>/<path>);",
    "3. node dist/bench/selection-grade.js --mirrors /work/.mirror -w 2 (Debian's python3 with python3-pytest, python3-mpmath and the flask/pytest packages of docs/grading.md; every distinct patch: hours on 2 busy cores; --sources swe-agent grades only the run without published verdicts);",
    "4. npm run bench -- --only selection --selection-set tuning [--official-grades] (tune there), then --selection-set held-out once.",
  ].join("\n");
}
