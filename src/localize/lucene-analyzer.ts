import { stemmer } from "stemmer";
import { detached, termId } from "./tokenize.js";

/**
 * The text analysis of the SWE-bench BM25 baseline (baseline.ts), re-created from what Pyserini's
 * default English analyzer does: Lucene's standard tokenizer (word characters kept together, and
 * joined across a single `.` or `'` between them, as UAX #29 word boundaries do), lower case, the
 * English possessive `'s` dropped, Lucene's English stop words, then the Porter stemmer. The
 * tokenizer is an approximation of UAX #29 (it does not treat every script's rules), which is
 * close for code and English prose. Terms are prefixed with `L:` in the shared vocabulary so they
 * never meet the localizer's own terms.
 */

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET. */
const LUCENE_STOP = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
);

const TOKEN = /[\p{L}\p{N}_]+(?:['’.][\p{L}\p{N}_]+)*/gu;
const MAX_TOKEN = 255;

/** Raw token → term id: a memo, emptied when a repository's analyses are dropped (repo-analyses.ts). */
const memo = new Map<string, number>();

/** Empties the token memo. */
export function forgetTokenMemo(): void {
  memo.clear();
}

/** The term id of one raw token, or -1 when the analyzer drops it. */
function analyze(raw: string): number {
  const known = memo.get(raw);
  if (known !== undefined) return known;
  let t = raw.toLowerCase();
  if (t.endsWith("'s") || t.endsWith("’s")) t = t.slice(0, -2);
  const id = t.length === 0 || t.length > MAX_TOKEN || LUCENE_STOP.has(t) ? -1 : termId(`L:${stemmer(t)}`);
  if (memo.size > 2_000_000) memo.clear();
  memo.set(detached(raw), id);
  return id;
}

/** Term ids of `text` under the baseline's analysis, with their counts. */
export function luceneTermCounts(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const m of text.matchAll(TOKEN)) {
    const id = analyze(m[0]);
    if (id >= 0) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
