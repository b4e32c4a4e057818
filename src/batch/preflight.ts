import { existsSync } from "node:fs";
import { parseModelName } from "../config/model-name.js";
import { maskUrlCredentials } from "../config/redact.js";
import type { Config, ModelConfig } from "../config/schema.js";
import type { SwebenchInstance } from "../dataset/types.js";
import { environmentProblem } from "../environments/preflight.js";
import { cloneDirFor } from "../instance/workspace.js";
import { resolveEndpoint } from "../models/endpoint.js";
import { ggufFileProblem } from "../models/gguf/model-file.js";
import { type Listing, listModels, maxTokensOf } from "../models/model-listing.js";
import { ANTHROPIC_VERSION, requestHeaders } from "../models/request-headers.js";

/** Every selected repository without a clone in `reposDir` (local and bwrap need one each). */
export function missingClones(
  config: Config,
  rows: SwebenchInstance[],
  reposDir: string | undefined,
): string | null {
  const kind = config.environment.environment_class;
  if ((kind !== "local" && kind !== "bwrap") || !reposDir) return null;
  const repos = [...new Set(rows.map((r) => r.repo))].sort();
  const missing = repos.filter((repo) => !existsSync(cloneDirFor(reposDir, repo)));
  if (missing.length === 0) return null;
  const shown = missing.slice(0, 5).map((repo) => `${repo} (${cloneDirFor(reposDir, repo)})`);
  if (missing.length > 5) shown.push(`and ${missing.length - 5} more`);
  return (
    `--repos-dir ${reposDir} has no clone of ${missing.length} of the ${repos.length} selected repositories: ` +
    `${shown.join(", ")}. Every instance of those would end as EnvironmentError. Clone each there as ` +
    `owner__repo (e.g. git clone https://github.com/${missing[0]}.git ${cloneDirFor(reposDir, missing[0])}), ` +
    "or narrow the selection"
  );
}

/** What GET <base>/models says, in words (null when it answers 2xx), and what it listed. */
async function modelsProblem(
  url: string,
  model: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ problem: string | null; listing: Listing }> {
  const listing = await listModels(url, model, headers, timeoutMs);
  // What is printed: credentials in the URL never are.
  const base = maskUrlCredentials(url);
  const status = listing.status;
  let problem: string | null = null;
  if (status === null) {
    const why =
      listing.problem === "TimeoutError" || listing.problem === "AbortError"
        ? `no answer within ${timeoutMs / 1000} s`
        : listing.problem;
    problem = `does not answer (${why}): start it, or check model.base_url`;
  } else if (status === 401 || status === 403)
    problem = `refuses the API key (HTTP ${status} on GET ${base}/models): check the key and model.api_key_env`;
  else if (status === 404)
    problem = `has no ${base}/models (HTTP 404): check model.base_url (an OpenAI-compatible server's usually ends in /v1)`;
  else if (status < 200 || status > 299) problem = `answers HTTP ${status} on GET ${base}/models`;
  return { problem, listing };
}

/**
 * `patchloop doctor`'s quick checks on what an answering server listed (no model request): the
 * model not among the listed ids is a warning (a proxy or an alias may still serve it); a
 * `max_tokens` not below the context length the server gives stops the run (every request would
 * be refused), one above half of it is a warning.
 */
function listingChecks(
  url: string,
  model: string,
  listing: Listing,
  maxTokens: number | null,
  warn: (m: string) => void,
): string | null {
  const at = `the model server at ${maskUrlCredentials(url)}`;
  if (listing.problem !== null) {
    warn(
      `${at}: GET /models answered, but ${listing.problem}; the served model and its context are not checked`,
    );
    return null;
  }
  if (!listing.ids.includes(model))
    warn(
      `${at} does not list "${model}" in GET /models (it lists ${listing.ids.join(", ") || "nothing"}): ` +
        "requests may fail; check -m (`patchloop doctor` checks the server in full)",
    );
  const context = listing.contextLength;
  if (context === null || maxTokens === null) return null;
  if (maxTokens >= context)
    return (
      `${at} serves "${model}" with a context of ${context} tokens (${listing.contextSource}), and ` +
      `model.model_kwargs.max_tokens is ${maxTokens}: no room is left for the prompt, so every request would be ` +
      `refused. Lower it (e.g. -c model.model_kwargs.max_tokens=${Math.floor(context / 4)}) or serve a longer context (vLLM --max-model-len)`
    );
  if (maxTokens > context / 2)
    warn(
      `${at}: model.model_kwargs.max_tokens ${maxTokens} is more than half the context (${context} tokens): ` +
        `a long trajectory soon leaves no room; at most ${Math.floor(context / 4)} is safer`,
    );
  return null;
}

/**
 * Whether the model server answers `GET <base>/models` (every replica of `model.base_url`; one
 * that answers is enough, the others are reported as a warning). Replay and scripted models need
 * no server. With `listing` (the batch preflight), an OpenAI-compatible server's answer is also
 * read as `patchloop doctor` reads it ({@link listingChecks}). Returns the problem, or null.
 */
export async function modelServerProblem(
  model: ModelConfig,
  warn: (m: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 10_000,
  listing = false,
): Promise<string | null> {
  const parsed = parseModelName(model.model_name);
  if (parsed.provider === "replay" || model.model_name === "scripted") return null;
  if (parsed.provider === "gguf") return ggufFileProblem(parsed.path);
  let endpoint: ReturnType<typeof resolveEndpoint>;
  try {
    endpoint = resolveEndpoint(parsed.provider, model, env);
  } catch {
    return null; // reported by the model check itself
  }
  const headers: Record<string, string> =
    parsed.provider === "anthropic"
      ? { "x-api-key": endpoint.apiKey, "anthropic-version": ANTHROPIC_VERSION }
      : requestHeaders("openai", endpoint.apiKey, env);
  const base = (u: string) => (parsed.provider === "anthropic" ? `${u}/v1` : u);
  const answers = await Promise.all(
    endpoint.baseURLs.map((u) => modelsProblem(base(u), parsed.model, headers, timeoutMs)),
  );
  const bad = endpoint.baseURLs.map((u, i) => [u, answers[i].problem] as const).filter(([, p]) => p !== null);
  if (bad.length === endpoint.baseURLs.length)
    return bad.map(([u, p]) => `the model server at ${maskUrlCredentials(u)} ${p}`).join("; ");
  for (const [u, p] of bad)
    warn(
      `the model server at ${maskUrlCredentials(u)} ${p}; the other replicas take its requests until it is back`,
    );
  // Anthropic's list is paged and names no context: only an OpenAI-compatible server's is read.
  if (!listing || parsed.provider !== "openai") return null;
  const maxTokens = maxTokensOf(model.model_kwargs as Record<string, unknown>);
  const stops = endpoint.baseURLs
    .map((u, i) =>
      answers[i].problem === null
        ? listingChecks(u, parsed.model, answers[i].listing, maxTokens, warn)
        : null,
    )
    .filter((p) => p !== null);
  return stops.length === 0 ? null : stops.join("; ");
}

/**
 * What would fail every instance, checked before the first one starts: a selected repository
 * without a clone in --repos-dir, a container engine that does not answer, a model server that
 * does not answer or whose context length leaves no room under `max_tokens` (`patchloop doctor`'s
 * quick part: one `GET /models` per replica, no model request; a model it does not list is a
 * warning). Returns one message (the CLI exits 2 with it), or null.
 */
export async function batchPreflight(o: {
  config: Config;
  rows: SwebenchInstance[];
  reposDir?: string;
  /** Check the model server (off when remote workers reach it from their own machines). */
  model?: boolean;
  /** Check clones and the engine (off for a coordinator: its workers have their own). */
  machine?: boolean;
  warn: (m: string) => void;
}): Promise<string | null> {
  const problems: string[] = [];
  if (o.machine !== false) {
    const clones = missingClones(o.config, o.rows, o.reposDir);
    if (clones) problems.push(clones);
    const engine = await environmentProblem(o.config.environment);
    if (engine) problems.push(engine);
  }
  if (o.model !== false) {
    const server = await modelServerProblem(o.config.model, o.warn, process.env, 10_000, true);
    if (server) problems.push(server);
  }
  return problems.length === 0 ? null : problems.join("\n");
}
