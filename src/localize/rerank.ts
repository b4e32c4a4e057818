import { StrictTemplate } from "../config/template.js";
import type { Model } from "../models/types.js";
import type { LocalizedFile, RerankRecord } from "./types.js";

/**
 * The optional second pass (`agent.localize.rerank`): one model call sees the issue and the top
 * candidates with their reasons and answers with the paths in the order it believes; the files it
 * names come first in its order, the others follow in the localizer's order. The reply is
 * untrusted: only lines naming a candidate count (a path it makes up is ignored), and a failed
 * call or a reply naming none of them leaves the ranking as it was, with the reason recorded.
 */

export interface RerankSettings {
  candidates: number;
  template: string;
}

/** The candidate paths a reply names, in the order it names them (each once). */
export function namedCandidates(reply: string, paths: string[]): string[] {
  const out: string[] = [];
  // longest first, so that `a/b/c.py` is not taken for `b/c.py`
  const byLength = [...paths].sort((a, b) => b.length - a.length);
  for (const line of reply.split("\n")) {
    const hit = byLength.find((p) => line.includes(p));
    if (hit && !out.includes(hit)) out.push(hit);
  }
  return out;
}

export async function rerankFiles(
  model: Model,
  task: string,
  files: LocalizedFile[],
  settings: RerankSettings,
  signal?: AbortSignal,
): Promise<{ files: LocalizedFile[]; record: RerankRecord }> {
  const pool = files.slice(0, settings.candidates);
  const record: RerankRecord = { model_calls: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0, order: [] };
  if (pool.length < 2)
    return { files, record: { ...record, error: "fewer than two candidates: nothing to re-rank" } };
  const prompt = new StrictTemplate(settings.template, "agent.localize.rerank.template").render({
    task,
    candidates: pool.map((f) => ({ path: f.path, why: f.why })),
    count: pool.length,
  });
  const res = await model.query({ messages: [{ role: "user", content: prompt }], signal });
  if (!res.ok) return { files, record: { ...record, error: `the re-rank call failed: ${res.message}` } };
  record.model_calls = 1;
  record.prompt_tokens = res.usage.prompt_tokens;
  record.completion_tokens = res.usage.completion_tokens;
  record.cost = res.cost;
  const text = typeof res.message.content === "string" ? res.message.content : "";
  const order = namedCandidates(
    text,
    pool.map((f) => f.path),
  );
  record.order = order;
  if (order.length === 0)
    return { files, record: { ...record, error: "the reply named none of the candidates: ranking kept" } };
  const byPath = new Map(pool.map((f, i) => [f.path, { f, i }]));
  const first = order.map((p) => byPath.get(p)!);
  const rest = pool.map((f, i) => ({ f, i })).filter((x) => !order.includes(x.f.path));
  const moved = [...first, ...rest].map(({ f, i }, j) =>
    i === j ? f : { ...f, why: [`re-ranked by the model: ${i + 1} -> ${j + 1}`, ...f.why] },
  );
  if (moved.every((f, j) => f === pool[j]))
    record.error = "the reply named the candidates in the order they already had: ranking unchanged";
  return { files: [...moved, ...files.slice(pool.length)], record };
}
