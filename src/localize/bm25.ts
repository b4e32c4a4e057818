import { countIn, type TermVector } from "./tokenize.js";

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
 * The BM25 score of every document for `query` (term id → how often the query has it), in the
 * order of `docs`. Documents without any query term score 0.
 */
export function bm25Scores(docs: TermVector[], query: Map<number, number>, p: Bm25Params): Float64Array {
  const n = docs.length;
  const scores = new Float64Array(n);
  if (n === 0) return scores;
  let total = 0;
  for (const d of docs) total += d.length;
  const avg = total / n || 1;
  const norm = new Float64Array(n);
  for (let i = 0; i < n; i++) norm[i] = p.k1 * (1 - p.b + (p.b * docs[i].length) / avg);
  const tf = new Uint32Array(n);
  for (const [term, qtf] of query) {
    let df = 0;
    for (let i = 0; i < n; i++) {
      tf[i] = countIn(docs[i], term);
      if (tf[i] > 0) df++;
    }
    if (df === 0) continue;
    const w = qtf * idf(n, df);
    for (let i = 0; i < n; i++) {
      const t = tf[i];
      if (t > 0) scores[i] += (w * t * (p.k1 + 1)) / (t + norm[i]);
    }
  }
  return scores;
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
  const weights: Array<[number, number]> = [];
  for (const [term, qtf] of query) {
    const df = corpus.df.get(term) ?? 0;
    if (df > 0) weights.push([term, qtf * idf(corpus.n, df)]);
  }
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    const norm = p.k1 * (1 - p.b + (p.b * d.length) / (corpus.avgLength || 1));
    let s = 0;
    for (const [term, w] of weights) {
      const t = countIn(d, term);
      if (t > 0) s += (w * t * (p.k1 + 1)) / (t + norm);
    }
    scores[i] = s;
  }
  return scores;
}
