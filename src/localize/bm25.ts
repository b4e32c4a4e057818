import type { TermVector } from "./tokenize.js";

/**
 * Okapi BM25 over term vectors (tokenize.ts), written here because the npm implementations at hand
 * do not fit: `okapibm25` rescans every document's text once per query term, and
 * `wink-bm25-text-search` brings its own NLP pipeline; neither takes pre-analysed documents that
 * can be cached per git blob. The formula is Lucene's (what the SWE-bench baseline used through
 * Pyserini): idf = ln(1 + (N - df + 0.5) / (df + 0.5)), and a term adds
 * qtf · idf · tf · (k1 + 1) / (tf + k1 · (1 - b + b · dl / avgdl)).
 */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** Lucene's defaults in Pyserini's searcher. */
export const PYSERINI_BM25: Bm25Params = { k1: 0.9, b: 0.4 };
/** The classic Okapi values. */
export const OKAPI_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Per-term weights as a dense table by term id (0 for terms the query lacks), so that scoring walks
 * each document's own terms once instead of searching every document for every query term.
 */
function denseTable(query: Map<number, number>): Float64Array {
  let max = -1;
  for (const t of query.keys()) if (t > max) max = t;
  return new Float64Array(max + 1);
}

/**
 * The BM25 score of every document for `query` (term id → how often the query has it), in the
 * order of `docs`. Documents without any query term score 0.
 */
export function bm25Scores(docs: TermVector[], query: Map<number, number>, p: Bm25Params): Float64Array {
  const n = docs.length;
  const scores = new Float64Array(n);
  if (n === 0 || query.size === 0) return scores;
  let total = 0;
  for (const d of docs) total += d.length;
  const avg = total / n || 1;
  const weight = denseTable(query);
  const inQuery = new Uint8Array(weight.length);
  for (const term of query.keys()) inQuery[term] = 1;
  const df = new Float64Array(weight.length);
  for (const d of docs)
    for (let j = 0; j < d.ids.length; j++) {
      const id = d.ids[j];
      if (id >= inQuery.length) break; // ids are sorted
      if (inQuery[id] === 1) df[id]++;
    }
  for (const [term, qtf] of query) if (df[term] > 0) weight[term] = qtf * idf(n, df[term]);
  scoreInto(docs, weight, avg, p, scores);
  return scores;
}

/** Adds each document's BM25 under per-term weights (qtf · idf) to `scores`. */
function scoreInto(
  docs: TermVector[],
  weight: Float64Array,
  avgLength: number,
  p: Bm25Params,
  scores: Float64Array,
): void {
  const limit = weight.length;
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    const norm = p.k1 * (1 - p.b + (p.b * d.length) / (avgLength || 1));
    let s = 0;
    const { ids, tfs } = d;
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j];
      if (id >= limit) break; // ids are sorted
      const w = weight[id];
      if (w !== 0) {
        const t = tfs[j];
        s += (w * t * (p.k1 + 1)) / (t + norm);
      }
    }
    scores[i] = s;
  }
}

/**
 * BM25 of `docs` with corpus statistics given from outside (`df` of each query term, the number of
 * documents `n` and their mean length): for scoring a few documents of a large corpus.
 */
export function bm25Subset(
  docs: TermVector[],
  query: Map<number, number>,
  corpus: { n: number; avgLength: number; df: Map<number, number> },
  p: Bm25Params,
): Float64Array {
  const scores = new Float64Array(docs.length);
  if (query.size === 0) return scores;
  const weight = denseTable(query);
  for (const [term, qtf] of query) {
    const df = corpus.df.get(term) ?? 0;
    if (df > 0) weight[term] = qtf * idf(corpus.n, df);
  }
  scoreInto(docs, weight, corpus.avgLength, p, scores);
  return scores;
}
