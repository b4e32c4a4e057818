import { existsSync } from "node:fs";
import { maskUrlCredentials } from "../../config/redact.js";
import type { Config, ModelConfig } from "../../config/schema.js";
import { environmentProblem } from "../../environments/preflight.js";
import { resolveEndpoint } from "../../models/endpoint.js";
import { ggufFileProblem } from "../../models/gguf/model-file.js";
import { createAgents, sendRequest } from "../../models/http-transport.js";
import { parseModelName } from "../../models/model-name.js";
import type { SwebenchInstance } from "../types.js";
import { cloneDirFor } from "./workspace.js";

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

/** What GET <base>/models says, in words; null when it answers 2xx. */
async function modelsProblem(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<string | null> {
  const agents = createAgents();
  // What is printed: credentials in the URL never are.
  const base = maskUrlCredentials(url);
  try {
    const res = await sendRequest(
      `${url}/models`,
      { method: "GET", headers, signal: AbortSignal.timeout(timeoutMs) },
      agents,
    );
    if (res.status >= 200 && res.status < 300) return null;
    if (res.status === 401 || res.status === 403)
      return `refuses the API key (HTTP ${res.status} on GET ${base}/models): check the key and model.api_key_env`;
    if (res.status === 404)
      return `has no ${base}/models (HTTP 404): check model.base_url (an OpenAI-compatible server's usually ends in /v1)`;
    return `answers HTTP ${res.status} on GET ${base}/models`;
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const why =
      e.name === "TimeoutError" || e.name === "AbortError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (e.code ?? e.cause?.code ?? e.message);
    return `does not answer (${why}): start it, or check model.base_url`;
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
}

/**
 * Whether the model server answers `GET <base>/models` (every replica of `model.base_url`; one
 * that answers is enough, the others are reported as a warning). Replay and scripted models need
 * no server. Returns the problem, or null.
 */
export async function modelServerProblem(
  model: ModelConfig,
  warn: (m: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 10_000,
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
      ? { "x-api-key": endpoint.apiKey, "anthropic-version": "2023-06-01" }
      : { authorization: `Bearer ${endpoint.apiKey}` };
  const base = (u: string) => (parsed.provider === "anthropic" ? `${u}/v1` : u);
  const problems = await Promise.all(
    endpoint.baseURLs.map((u) => modelsProblem(base(u), headers, timeoutMs)),
  );
  const bad = endpoint.baseURLs.map((u, i) => [u, problems[i]] as const).filter(([, p]) => p !== null);
  if (bad.length === 0) return null;
  const lines = bad.map(([u, p]) => `the model server at ${maskUrlCredentials(u)} ${p}`);
  if (bad.length < endpoint.baseURLs.length) {
    for (const l of lines) warn(`${l}; the other replicas take its requests until it is back`);
    return null;
  }
  return lines.join("; ");
}

/**
 * What would fail every instance, checked before the first one starts: a selected repository
 * without a clone in --repos-dir, a container engine that does not answer, a model server that
 * does not answer. Returns one message (the CLI exits 2 with it), or null.
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
    const server = await modelServerProblem(o.config.model, o.warn);
    if (server) problems.push(server);
  }
  return problems.length === 0 ? null : problems.join("\n");
}
