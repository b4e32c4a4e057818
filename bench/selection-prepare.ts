import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import {
  Candidate,
  candidatesPath,
  type InstanceInfo,
  type InstancesFile,
  SOURCES,
  type Source,
  type SourcesFile,
  selectionDataDir,
} from "./selection-data.js";

/**
 * `node dist/bench/selection-prepare.js --mirrors DIR --feasibility FILE [--max-test-seconds 300]`:
 * writes the selection benchmark's candidates into the data folder (selection-data.ts). DIR holds
 * the fetched snapshots as `<owner>+<name>/repo` git directories; each source's file is read at its
 * pinned commit. FILE is the feasibility table (tab-separated, `instance_id`, `repo`, `version`,
 * `works_locally`, `after_test_s` columns): the instances with `works_locally = yes` are measured,
 * except those whose tests ran longer than --max-test-seconds there (grading them once per
 * distinct patch would take most of the time; they are listed under `left_out`).
 * `--copies DIR`: where a repository's snapshot is not under --mirrors (one that cannot be fetched
 * here), its file is read from `DIR/<owner>+<name>@<commit>/<path>`, a copy of that file at that
 * commit (for a `complete` run, a copy that lacks a measured instance is refused).
 */

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** Where a copy of `path` at the source's commit lives under the --copies folder. */
function copyPath(copies: string, source: Source, path: string): string {
  return join(copies, `${source.repo.replace("/", "+")}@${source.commit}`, path);
}

/** The file at the source's commit: from its snapshot, else from a copy; and where it came from. */
function readSourceFile(
  mirrors: string,
  copies: string | undefined,
  source: Source,
  path: string,
): { text: string; copy: string | null } {
  const gitDir = join(mirrors, source.repo.replace("/", "+"), "repo");
  if (!existsSync(gitDir) && copies) {
    const copy = copyPath(copies, source, path);
    if (!existsSync(copy))
      throw new Error(
        `no snapshot of ${source.repo} in ${mirrors} and no copy of ${path} at ${copy}; fetch the repository or put the file at ${source.commit} there`,
      );
    return { text: readFileSync(copy, "utf8"), copy };
  }
  return { text: gitShow(mirrors, source, path), copy: null };
}

function gitShow(mirrors: string, source: Source, path: string): string {
  const gitDir = join(mirrors, source.repo.replace("/", "+"), "repo");
  try {
    return execFileSync("git", ["--git-dir", gitDir, "show", `${source.commit}:${path}`], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    throw new Error(
      `cannot read ${path} at ${source.commit} from ${gitDir}: ${(err as Error).message.split("\n")[0]}; fetch a snapshot of ${source.repo} there`,
    );
  }
}

/** A predictions file as the harness reads it: a .json list or object of predictions, or .jsonl. */
function parsePredictions(text: string, where: string): Candidate[] {
  const values: unknown[] = where.endsWith(".jsonl")
    ? text
        .split("\n")
        .filter((l) => l.trim().length > 0)
        .map((l) => JSON.parse(l))
    : (() => {
        const v: unknown = JSON.parse(text);
        return Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
      })();
  return values.map((v, i) => {
    const row = v as Record<string, unknown>;
    const parsed = Candidate.safeParse({ ...row, model_patch: row.model_patch ?? "" });
    if (!parsed.success) throw new Error(`${where}: prediction ${i + 1}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
}

/** One instance's file of a run that keeps every attempt (aider's): its attempts, in order. */
const AttemptsFile = z.object({
  instance_id: z.string().min(1),
  /** The attempt the system itself submitted (aider's: the first its checks found plausible). */
  model_patch: z.string().nullable().optional(),
  all_results: z.array(
    z.object({ model: z.string().optional(), model_patch: z.string().nullable().optional() }).passthrough(),
  ),
});

/**
 * The attempt at `source.attempt` of each instance, from the per-instance files under
 * `source.predictions` (an instance without a file, or with fewer attempts, gives none), and the
 * instances where it is the one the system submitted (the first attempt with that patch).
 */
function attemptPredictions(
  mirrors: string,
  source: Source,
  ids: readonly string[],
): { candidates: Candidate[]; ownPick: string[] } {
  const gitDir = join(mirrors, source.repo.replace("/", "+"), "repo");
  const listed = new Set(
    execFileSync(
      "git",
      ["--git-dir", gitDir, "ls-tree", "--name-only", `${source.commit}:${source.predictions}`],
      {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    ).split("\n"),
  );
  const k = (source.attempt ?? 1) - 1;
  const out: Candidate[] = [];
  const ownPick: string[] = [];
  for (const id of ids) {
    if (!listed.has(`${id}.json`)) continue;
    const where = `${source.repo}@${source.commit.slice(0, 10)}:${source.predictions}/${id}.json`;
    const parsed = AttemptsFile.safeParse(
      JSON.parse(gitShow(mirrors, source, `${source.predictions}/${id}.json`)),
    );
    if (!parsed.success) throw new Error(`${where}: ${parsed.error.issues[0]?.message}`);
    if (parsed.data.instance_id !== id) throw new Error(`${where}: says it is ${parsed.data.instance_id}`);
    const attempts = parsed.data.all_results.map((a) => a.model_patch ?? "");
    const attempt = parsed.data.all_results[k];
    if (!attempt) continue;
    out.push({
      instance_id: id,
      model_name_or_path: `aider (${attempt.model ?? "model not recorded"})`,
      model_patch: attempts[k] ?? "",
    });
    const submitted = parsed.data.model_patch ?? "";
    if (attempts.indexOf(submitted) === k) ownPick.push(id);
  }
  return { candidates: out, ownPick };
}

/** The `resolved` ids of an official report; CodeR's results.json has trailing commas, which are dropped. */
function officialResolved(text: string, where: string): string[] {
  const report = JSON.parse(text.replace(/,(\s*[\]}])/g, "$1")) as { resolved?: unknown };
  if (!Array.isArray(report.resolved) || !report.resolved.every((x) => typeof x === "string"))
    throw new Error(`${where}: no "resolved" list of instance ids`);
  return report.resolved as string[];
}

function feasibleInstances(path: string, maxSeconds: number): InstancesFile {
  const [header, ...lines] = readFileSync(path, "utf8").trim().split("\n");
  const cols = header.split("\t");
  const col = (name: string): number => {
    const i = cols.indexOf(name);
    if (i < 0) throw new Error(`${path}: no column ${name} (columns: ${cols.join(", ")})`);
    return i;
  };
  const [id, repo, version, works, seconds] = [
    "instance_id",
    "repo",
    "version",
    "works_locally",
    "after_test_s",
  ].map(col);
  const instances: InstanceInfo[] = [];
  const leftOut: InstancesFile["left_out"] = [];
  for (const line of lines) {
    const f = line.split("\t");
    if (f[works] !== "yes") continue;
    const info = { instance_id: f[id], repo: f[repo], version: f[version], test_seconds: Number(f[seconds]) };
    if (info.test_seconds > maxSeconds)
      leftOut.push({
        instance_id: info.instance_id,
        reason: `its tests took ${info.test_seconds} s with the gold patch, over --max-test-seconds ${maxSeconds}`,
      });
    else instances.push(info);
  }
  return { instances, left_out: leftOut };
}

function main(): void {
  const mirrors = arg("--mirrors");
  const copies = arg("--copies");
  const feasibility = arg("--feasibility");
  if (!mirrors || !feasibility) {
    process.stderr.write(
      "usage: selection-prepare.js --mirrors DIR --feasibility FILE [--max-test-seconds 300] [--copies DIR]\n",
    );
    process.exit(2);
  }
  const dir = selectionDataDir();
  mkdirSync(join(dir, "candidates"), { recursive: true });
  const measured = feasibleInstances(resolve(feasibility), Number(arg("--max-test-seconds", "300")));
  const ids = new Set(measured.instances.map((i) => i.instance_id));
  const sources: SourcesFile = [];
  for (const s of SOURCES) {
    const where = `${s.repo}@${s.commit.slice(0, 10)}:${s.predictions}`;
    const attempts = s.attempt !== undefined ? attemptPredictions(mirrors, s, [...ids]) : undefined;
    const file = attempts ? undefined : readSourceFile(mirrors, copies, s, s.predictions);
    const predictions = attempts?.candidates ?? parsePredictions(file?.text ?? "", where);
    const byId = new Map(predictions.map((p) => [p.instance_id, p]));
    const missing = s.complete ? [...ids].filter((id) => !byId.has(id)) : [];
    if (missing.length > 0)
      throw new Error(
        `${file?.copy ?? where}: ${s.name} answered every Lite instance, but this file has no line for ${missing.length} measured instance(s) (${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", ..." : ""}); it is not the whole run: read it again`,
      );
    const rows = measured.instances.map(
      (i) =>
        byId.get(i.instance_id) ?? {
          instance_id: i.instance_id,
          model_name_or_path: s.name,
          model_patch: "",
        },
    );
    writeFileSync(candidatesPath(dir, s.name), `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const official = s.officialReport
      ? officialResolved(
          readSourceFile(mirrors, copies, s, s.officialReport).text,
          `${s.repo}:${s.officialReport}`,
        ).filter((x) => ids.has(x))
      : null;
    sources.push({
      name: s.name,
      system: s.system,
      repo: s.repo,
      commit: s.commit,
      predictions:
        s.attempt !== undefined ? `${s.predictions}/<instance_id>.json, attempt ${s.attempt}` : s.predictions,
      pool: s.pool,
      official_resolved: official,
      own_pick: attempts?.ownPick ?? null,
      copy: file?.copy ?? null,
    });
    const nonEmpty = rows.filter((r) => r.model_patch.trim().length > 0).length;
    process.stdout.write(
      `${s.name}: ${nonEmpty}/${rows.length} non-empty patches${official ? `, ${official.length} officially resolved` : ""}${file?.copy ? ` (from the copy ${file.copy})` : ""}\n`,
    );
  }
  writeFileSync(join(dir, "instances.json"), `${JSON.stringify(measured, null, 2)}\n`);
  writeFileSync(join(dir, "sources.json"), `${JSON.stringify(sources, null, 2)}\n`);
  process.stdout.write(
    `${measured.instances.length} instances (${measured.left_out.length} left out) -> ${dir}\n`,
  );
}

main();
