import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Command } from "commander";
import { readTrajectoryJson } from "../agent/trajectory-journal.js";
import { ConfigError } from "../config/errors.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { normalizeTrajectory, TrajectoryFormatError } from "../inspect/normalize.js";
import { isTrajectoryName } from "../inspect/scan-files.js";
import type { TrajectoryView } from "../inspect/view/view-model.js";
import { type AttemptsPrefix, attemptGroups, attemptsPrefix } from "../tokens/attempts-prefix.js";
import { MissingPackagesError } from "../tokens/optional-packages.js";
import { type ReplayFigures, replay } from "../tokens/replay.js";
import { familyOf, loadTokenizer, TOKENIZER_NAMES, type TokenizerName } from "../tokens/tokenizers.js";
import { collect } from "./common.js";
import { guarded } from "./guarded.js";

interface TokensOptions {
  config: string[];
  json?: boolean;
  tokenizer?: string;
  cacheTokens?: string;
}

/** One trajectory's row of the report. */
export interface TokensRow extends ReplayFigures {
  file: string;
  source: string;
  model: string | null;
  tokenizer: TokenizerName;
}

/** What `patchloop tokens --json` prints. */
export interface TokensReport {
  policy: Config["agent"]["history"];
  context_limit: number;
  /** Tokens the simulated prefix cache holds per trajectory; null: no bound. */
  cache_tokens: number | null;
  trajectories: TokensRow[];
  total: ReplayFigures;
  /** Per instance with attempts (`DIR/<id>/attempt-<k>/`): what their first requests prefill through one cache. */
  attempts: AttemptsPrefix[];
}

/** The trajectory files PATH names: the file itself, or every `*.traj.json` / `*.traj` below a folder. */
function trajectoryFiles(path: string): string[] {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (err) {
    throw new TrajectoryFormatError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!st.isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && isTrajectoryName(e.name)) found.push(p);
    }
  };
  walk(path);
  if (found.length === 0) throw new TrajectoryFormatError(`no *.traj.json or *.traj file under ${path}`);
  return found;
}

/** A trajectory file with a running or killed patchloop task's journal applied (trajectory-journal.ts). */
async function loadView(path: string): Promise<TrajectoryView> {
  const { doc } = await readTrajectoryJson(path).catch((err: Error) => {
    throw new TrajectoryFormatError(err.message);
  });
  return normalizeTrajectory(doc, path);
}

const sum = (rows: ReplayFigures[]): ReplayFigures => ({
  requests: rows.reduce((a, r) => a + r.requests, 0),
  prompt_tokens: rows.reduce((a, r) => a + r.prompt_tokens, 0),
  prefill_tokens: rows.reduce((a, r) => a + r.prefill_tokens, 0),
  largest_prompt: rows.reduce((a, r) => Math.max(a, r.largest_prompt), 0),
  append_only_requests: rows.reduce((a, r) => a + r.append_only_requests, 0),
  later_requests: rows.reduce((a, r) => a + r.later_requests, 0),
  block_steps: rows.reduce((a, r) => a + r.block_steps, 0),
});

/** Replays each trajectory under the config's `agent.history` (see docs/history.md). */
export async function tokensReport(
  paths: string[],
  config: Config,
  opts: { tokenizer?: TokenizerName; cacheTokens?: number } = {},
): Promise<TokensReport> {
  return (await tokensReports(paths, config, { tokenizer: opts.tokenizer, caches: [opts.cacheTokens] }))[0];
}

/**
 * {@link tokensReport} for several cache sizes (`undefined`: no bound), one report each, reading and
 * replaying each trajectory once (npm run bench's history section).
 */
export async function tokensReports(
  paths: string[],
  config: Config,
  opts: { tokenizer?: TokenizerName; caches: Array<number | undefined> },
): Promise<TokensReport[]> {
  const { tokenizer, caches } = opts;
  const rows: TokensRow[][] = caches.map(() => []);
  const files = paths.flatMap(trajectoryFiles);
  const views = new Map<string, TrajectoryView>();
  for (const file of files) {
    const view = await loadView(file);
    views.set(file, view);
    const name = tokenizer ?? familyOf(view.model ?? config.model.model_name);
    const figures = replay(
      view,
      {
        history: config.agent.history,
        contextLimit: config.agent.context_limit,
        tokenizer: await loadTokenizer(name),
      },
      caches,
    );
    for (const [c, f] of figures.entries())
      rows[c].push({ file, source: view.source, model: view.model, tokenizer: name, ...f });
  }
  const attempts: AttemptsPrefix[] = [];
  for (const [instance, list] of attemptGroups(files)) {
    const first = views.get(list[0].file) as TrajectoryView;
    const name = tokenizer ?? familyOf(first.model ?? config.model.model_name);
    const tok = await loadTokenizer(name);
    attempts.push(
      attemptsPrefix(
        instance,
        list.map((a) => ({ attempt: a.attempt, view: views.get(a.file) as TrajectoryView })),
        tok,
      ),
    );
  }
  return caches.map((cacheTokens, c) => ({
    policy: config.agent.history,
    context_limit: config.agent.context_limit,
    cache_tokens: cacheTokens ?? null,
    trajectories: rows[c],
    total: sum(rows[c]),
    attempts,
  }));
}

const n = (x: number) => x.toLocaleString("en-US");

function table(report: TokensReport): string {
  const h = report.policy;
  const head =
    h.policy === "full"
      ? "policy full (every message as recorded)"
      : `policy mask_observations (keep_last ${h.keep_last}, every ${h.every || "off"}, threshold ${
          h.threshold > 0 && report.context_limit > 0
            ? `${h.threshold} of context_limit ${report.context_limit}`
            : "off"
        })`;
  const cols = [
    "TRAJECTORY",
    "TOKENIZER",
    "REQUESTS",
    "PROMPT TOKENS",
    "PREFILL TOKENS",
    "LARGEST PROMPT",
    "APPEND-ONLY",
  ];
  const cwd = process.cwd();
  const line = (name: string, tok: string, f: ReplayFigures) => [
    name,
    tok,
    n(f.requests),
    n(f.prompt_tokens),
    n(f.prefill_tokens),
    n(f.largest_prompt),
    `${f.append_only_requests}/${f.later_requests}`,
  ];
  const rows = report.trajectories.map((r) => {
    const rel = relative(cwd, r.file);
    return line(rel.startsWith("..") ? r.file : rel, r.tokenizer, r);
  });
  if (rows.length > 1) rows.push(line("total", "", report.total));
  const all = [cols, ...rows];
  const widths = cols.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  const estimated = report.trajectories.some((r) => r.tokenizer === "estimate");
  return [
    head,
    ...all.map(fmt),
    `PREFILL TOKENS: what a block prefix cache (16-token blocks, ${
      report.cache_tokens === null
        ? "nothing evicted"
        : `${n(report.cache_tokens)} tokens, least recently used out first`
    }) still computes; APPEND-ONLY: requests that begin with the whole previous one.`,
    ...(estimated
      ? ["tokenizer estimate: 4 characters a token (no npm tokenizer for that model family)."]
      : []),
    ...report.attempts.map((a) => {
      const rel = relative(cwd, a.instance);
      const ratio =
        a.later_over_first === null
          ? ""
          : `; attempts 2..N at most ${a.later_over_first.toFixed(3)} of attempt 1's`;
      return `attempts of ${rel.startsWith("..") ? a.instance : rel}: first requests prefill ${a.first_request_prefill.map(n).join(", ")} of ${a.first_request_tokens.map(n).join(", ")} tokens through one prefix cache${ratio}`;
    }),
  ].join("\n");
}

/**
 * `patchloop tokens PATH... [-c CONFIG]... [--json] [--tokenizer NAME]`: replays recorded
 * trajectories (patchloop, mini-swe-agent, SWE-agent) under the configured `agent.history` without
 * a model and reports per trajectory and in total the prompt tokens, the tokens a block prefix cache
 * would prefill, the largest prompt and the append-only requests. Exit 2 on a bad path, file or
 * config, or when the tokenizer's optional package is not installed.
 */
export function register(program: Command): void {
  program
    .command("tokens")
    .description(
      "Replay trajectories under a history policy: prompt, prefill (prefix cache) and largest prompt tokens",
    )
    .argument("<paths...>", "trajectory files (patchloop, mini-swe-agent, SWE-agent) or folders holding them")
    .option(
      "-c, --config <CONFIG>",
      "built-in config name, YAML file, or dotted.key=value (repeatable, later wins)",
      collect,
      [],
    )
    .option(
      "--tokenizer <NAME>",
      `${TOKENIZER_NAMES.join(", ")} (default: from each trajectory's model name)`,
    )
    .option("--cache-tokens <N>", "tokens the prefix cache holds per trajectory (default: no bound)")
    .option("--json", "print the report as JSON")
    .action((paths: string[], opts: TokensOptions) =>
      guarded(
        async () => {
          if (
            opts.tokenizer !== undefined &&
            !(TOKENIZER_NAMES as readonly string[]).includes(opts.tokenizer)
          )
            throw new ConfigError(
              `--tokenizer must be one of ${TOKENIZER_NAMES.join(", ")}, got ${JSON.stringify(opts.tokenizer)}`,
            );
          const cacheTokens = opts.cacheTokens === undefined ? undefined : Number(opts.cacheTokens);
          if (cacheTokens !== undefined && !(Number.isInteger(cacheTokens) && cacheTokens >= 16))
            throw new ConfigError(
              `--cache-tokens must be a whole number of tokens, 16 or more; got ${JSON.stringify(opts.cacheTokens)}`,
            );
          const { config } = loadConfig({ configArgs: opts.config, defaultConfig: "default" });
          const report = await tokensReport(paths, config, {
            ...(opts.tokenizer !== undefined ? { tokenizer: opts.tokenizer as TokenizerName } : {}),
            ...(cacheTokens !== undefined ? { cacheTokens } : {}),
          });
          process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${table(report)}\n`);
          return 0;
        },
        {
          classes: [TrajectoryFormatError, ConfigError, MissingPackagesError],
          prefix: "patchloop tokens: ",
        },
      ),
    );
}
