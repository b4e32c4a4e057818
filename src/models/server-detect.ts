import { createAgents, sendRequest } from "./http-transport.js";
import { asRecord } from "./json-shape.js";
import type { ServerKind } from "./types.js";

/** What an OpenAI-compatible endpoint says about itself. */
export interface ServerFacts {
  server: ServerKind | null;
  /** The context window it reports for the served model, when it does. */
  contextLength: number | null;
  /** The request that told (e.g. `GET /v1/models`), for messages. */
  source: string;
}

const OWNERS: Record<string, ServerKind> = { vllm: "vllm", sglang: "sglang", llamacpp: "llamacpp" };

const positive = (v: unknown): number | null => (typeof v === "number" && v > 0 ? v : null);

async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | null> {
  const agents = createAgents();
  try {
    const res = await sendRequest(url, { method: "GET", signal: AbortSignal.timeout(timeoutMs) }, agents);
    if (res.status < 200 || res.status > 299) return null;
    return asRecord(JSON.parse(res.bodyText));
  } catch {
    return null;
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
}

/**
 * Asks the server which it is: `GET <base>/models` (vLLM, SGLang and llama.cpp name themselves in
 * `owned_by` and report `max_model_len` / `meta.n_ctx`), then llama.cpp's `GET /props`
 * (`default_generation_settings.n_ctx`), then Ollama's `GET /api/version`. The hosted OpenAI API
 * is known by its host. Unknown servers give `server: null`; nothing here throws.
 */
export async function detectServer(baseURL: string, model: string, timeoutMs = 10_000): Promise<ServerFacts> {
  const url = new URL(baseURL);
  if (url.hostname === "api.openai.com") return { server: "openai", contextLength: null, source: url.host };
  const root = `${url.origin}${url.pathname.replace(/\/v1\/?$/, "")}`.replace(/\/+$/, "");
  const models = await getJson(`${baseURL}/models`, timeoutMs);
  const data = Array.isArray(models?.data) ? models.data.map(asRecord).filter((m) => m !== null) : [];
  const card = data.find((m) => m.id === model) ?? data[0];
  const owner = typeof card?.owned_by === "string" ? OWNERS[card.owned_by] : undefined;
  if (card && owner) {
    const meta = asRecord(card.meta);
    const contextLength =
      positive(card.max_model_len) ?? positive(meta?.n_ctx) ?? positive(meta?.n_ctx_train);
    return { server: owner, contextLength, source: "GET /v1/models" };
  }
  const props = await getJson(`${root}/props`, timeoutMs);
  const settings = asRecord(props?.default_generation_settings);
  if (props && settings) {
    return { server: "llamacpp", contextLength: positive(settings.n_ctx), source: "GET /props" };
  }
  const version = await getJson(`${root}/api/version`, timeoutMs);
  if (version && typeof version.version === "string") {
    return { server: "ollama", contextLength: null, source: "GET /api/version" };
  }
  return { server: null, contextLength: null, source: "GET /v1/models, /props, /api/version" };
}

/**
 * What `GET <base>/models` says the served model `model` is, beside its served name: vLLM's `root`
 * (the path or Hugging Face name it was loaded from, when `--served-model-name` gave an alias) and
 * llama.cpp's `models[].model` (the file). Empty when the server lists nothing more or does not
 * answer within `timeoutMs`; nothing here throws. For the family from the model's name.
 */
export async function servedModelNames(baseURL: string, model: string, timeoutMs = 3_000): Promise<string[]> {
  const listing = await getJson(`${baseURL.replace(/\/+$/, "")}/models`, timeoutMs);
  const names: string[] = [];
  const data = Array.isArray(listing?.data) ? listing.data.map(asRecord).filter((m) => m !== null) : [];
  const card = data.find((m) => m.id === model);
  if (typeof card?.root === "string") names.push(card.root);
  const files = Array.isArray(listing?.models) ? listing.models.map(asRecord).filter((m) => m !== null) : [];
  for (const f of files)
    if ((f.name === model || files.length === 1) && typeof f.model === "string") names.push(f.model);
  return names.filter((n) => n !== model);
}
