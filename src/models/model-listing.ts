import { createAgents, sendRequest } from "./http-transport.js";
import { asRecord } from "./json-shape.js";

/**
 * What an OpenAI-compatible server's `GET <base>/models` says: the ids it serves and, where it
 * says one, the context length of the model asked about (vLLM's and SGLang's `max_model_len`,
 * llama.cpp's `meta.n_ctx`). Read by `patchloop doctor` and by the batch preflight.
 */
export interface Listing {
  /** The HTTP status; null when no answer came. */
  status: number | null;
  ms: number;
  /** Why GET /models gave nothing (no answer: the error's code or name; a 2xx body that is not JSON). */
  problem: string | null;
  ids: string[];
  owner: string | null;
  contextLength: number | null;
  contextSource: string | null;
}

/** One GET; the status and body, or the error's code (`ECONNREFUSED`, `TimeoutError`). */
export async function httpGet(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; text: string } | { error: string }> {
  const agents = createAgents();
  try {
    const res = await sendRequest(
      url,
      { method: "GET", headers, signal: AbortSignal.timeout(timeoutMs) },
      agents,
    );
    return { status: res.status, text: res.bodyText };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { error: e.code ?? e.name ?? e.message };
  } finally {
    agents.http.destroy();
    agents.https.destroy();
  }
}

export const positive = (v: unknown): number | null => (typeof v === "number" && v > 0 ? v : null);

/** `GET <base>/models`, timed, read for `model`'s card. */
export async function listModels(
  base: string,
  model: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Listing> {
  const started = Date.now();
  const res = await httpGet(`${base}/models`, headers, timeoutMs);
  const ms = Date.now() - started;
  const empty = { ids: [], owner: null, contextLength: null, contextSource: null };
  if ("error" in res) return { status: null, ms, problem: res.error, ...empty };
  if (res.status < 200 || res.status > 299) return { status: res.status, ms, problem: null, ...empty };
  let body: Record<string, unknown> | null = null;
  try {
    body = asRecord(JSON.parse(res.text));
  } catch {
    return { status: res.status, ms, problem: "the body is not JSON", ...empty };
  }
  const data = Array.isArray(body?.data) ? body.data.map(asRecord).filter((m) => m !== null) : [];
  const card = data.find((m) => m.id === model);
  const meta = asRecord(card?.meta);
  const fromLen = positive(card?.max_model_len);
  const fromMeta = positive(meta?.n_ctx);
  return {
    status: res.status,
    ms,
    problem: null,
    ids: data.map((m) => String(m.id)),
    owner: typeof card?.owned_by === "string" ? card.owned_by : null,
    contextLength: fromLen ?? fromMeta,
    contextSource: fromLen ? "max_model_len in GET /models" : fromMeta ? "meta.n_ctx in GET /models" : null,
  };
}

/** `model.model_kwargs`' output cap: `max_tokens`, else `max_completion_tokens`; null when unset. */
export function maxTokensOf(kwargs: Record<string, unknown>): number | null {
  return positive(kwargs.max_tokens) ?? positive(kwargs.max_completion_tokens);
}
