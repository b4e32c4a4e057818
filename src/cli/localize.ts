import { existsSync, mkdirSync, statSync } from "node:fs";
import { appendFile, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { environmentProblem } from "../environments/preflight.js";
import { makeWorkspaceRoot } from "../instance/workspace-root.js";
import { repoAnalyses } from "../localize/repo-analyses.js";
import { createModel } from "../models/factory/create-model.js";
import { plural } from "../util/plural.js";
import { type AgentFlags, addAgentOptions, addSelectionOptions, guarded, loadAgentConfig } from "./common.js";
import { instanceReader, localizeRow, type RepoReader, type RowSettings } from "./localize-instance.js";
import { type SelectionFlags, selectRows } from "./select-rows.js";

/** The flags of `patchloop localize` (docs/localize.md). */
export interface LocalizeFlags extends AgentFlags, SelectionFlags {
  reposDir?: string;
  top: string;
  symbols?: string;
  output: string;
}

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min || n > 1000)
    throw new ConfigError(`${flag} needs an integer from ${min} to 1000; got ${JSON.stringify(value)}`);
  return n;
}

function source(flags: LocalizeFlags): "repos-dir" | "environment" {
  const env = flags.environment;
  if (flags.reposDir && env)
    throw new ConfigError("give --repos-dir DIR or --environment docker|podman, not both");
  if (flags.reposDir) {
    if (!existsSync(flags.reposDir) || !statSync(flags.reposDir).isDirectory())
      throw new ConfigError(`--repos-dir ${flags.reposDir}: not a directory`);
    return "repos-dir";
  }
  if (env === "docker" || env === "podman") return "environment";
  throw new ConfigError(
    env
      ? `--environment ${env}: localize reads a repository from a docker or podman container of the instance image; for a local checkout give --repos-dir DIR`
      : "where are the repositories? Give --repos-dir DIR (one git clone per repository, named owner__repo) or --environment docker|podman (the SWE-bench instance images)",
  );
}

function rerankOf(config: Config): RowSettings["rerank"] {
  const rr = config.agent.localize.rerank;
  if (!rr.enabled) return undefined;
  if (!config.model.model_name)
    throw new ConfigError(
      "agent.localize.rerank.enabled needs a model: pass -m openai/<name> or -m anthropic/<name>",
    );
  try {
    return { model: createModel(config.model), settings: rr };
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/**
 * `patchloop localize`: ranks the files (and definitions) each selected instance's fix is likely
 * to touch, one JSON line per instance in `-o FILE` as it is done. An instance that cannot be
 * localized (no problem statement, no clone, a missing base commit) gets a line with `error` and
 * the others go on. Exit 0 when every instance was localized, 1 when some were not, 2 for usage errors.
 */
export async function runLocalizeCommand(
  flags: LocalizeFlags,
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const from = source(flags);
  const top = count("--top", flags.top, 1);
  const { config } = loadAgentConfig(flags, "swebench", null);
  const symbols =
    flags.symbols === undefined ? config.agent.localize.top_symbols : count("--symbols", flags.symbols, 0);
  const settings: RowSettings = { topK: top, topSymbols: symbols, rerank: rerankOf(config) };
  const { rows } = await selectRows(flags);
  if (from === "environment") {
    const engine = await environmentProblem(config.environment);
    if (engine) throw new ConfigError(engine);
  }
  const out = resolve(flags.output);
  if (existsSync(out) && statSync(out).isDirectory())
    throw new ConfigError(`-o ${flags.output}: is a folder; give a file (FILE.jsonl)`);
  mkdirSync(dirname(out), { recursive: true });
  await writeFile(out, "");
  const root = await makeWorkspaceRoot();
  const limits = { maxFileBytes: config.agent.localize.max_file_bytes };
  const reposDir = from === "repos-dir" ? resolve(flags.reposDir!) : undefined;
  const read: RepoReader = instanceReader(config, { reposDir, workRoot: root }, limits);
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    err("interrupted: finishing the instance in progress (Ctrl-C again to quit at once)\n");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const t0 = performance.now();
  let failed = 0;
  let done = 0;
  // A repository's analyses are kept while rows of it are still to come, and dropped after its last.
  const analyses = repoAnalyses();
  for (const row of rows) analyses.retain(row.repo);
  let released = 0;
  try {
    for (const [i, row] of rows.entries()) {
      if (abort.signal.aborted) break;
      const r = await localizeRow(row, read, settings, abort.signal);
      analyses.release(row.repo);
      released++;
      await appendFile(out, `${JSON.stringify(r.line)}\n`);
      done++;
      const where = `[${i + 1}/${rows.length}] ${r.line.instance_id}`;
      if (r.line.error) {
        failed++;
        err(`${where}: error: ${r.line.error}\n`);
      } else {
        const first = r.line.files[0];
        const rr = r.line.rerank;
        const reranked = !rr
          ? ""
          : rr.error
            ? `; re-rank kept the ranking: ${rr.error}`
            : `; re-ranked by the model (it named ${rr.order.join(", ")})`;
        err(
          `${where}: ${first ? `${first.path} first` : "no file matched"} of ${plural(r.filesIndexed, "file")} (${r.seconds.toFixed(2)} s)${reranked}\n`,
        );
      }
    }
  } finally {
    for (const row of rows.slice(released)) analyses.release(row.repo);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await rm(root, { recursive: true, force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  err(
    `localized ${done - failed} of ${rows.length} instances${failed ? ` (${failed} with an error)` : ""}` +
      `${done < rows.length ? `; ${rows.length - done} not started (interrupted)` : ""} in ${seconds.toFixed(1)} s -> ${out}\n`,
  );
  return failed > 0 || done < rows.length ? 1 : 0;
}

export function register(program: Command): void {
  addAgentOptions(
    addSelectionOptions(
      program
        .command("localize")
        .description(
          "rank the files and definitions each SWE-bench instance's fix likely touches (no model needed)",
        ),
    )
      .option("--repos-dir <DIR>", "folder with one git clone per repository, named owner__repo")
      .option("--top <K>", "files per instance", "10")
      .option("--symbols <N>", "definitions per instance (default: agent.localize.top_symbols)")
      .requiredOption("-o, --output <FILE>", "the JSONL file to write (replaced), one line per instance"),
    "docker or podman: read each repository in a container of its instance image (else --repos-dir)",
  ).action((flags: LocalizeFlags) => guarded(() => runLocalizeCommand(flags)));
}
