import { bm25Scores, PYSERINI_BM25 } from "./bm25.js";
import { luceneTermCounts } from "./lucene-analyzer.js";
import type { RepoSnapshot } from "./repo-files.js";
import { mergeVectors, type TermVector, vectorOf } from "./tokenize.js";

/**
 * The retrieval baseline of SWE-bench's own "BM25 retrieval" setting, re-created for comparison in
 * the benchmark: documents are the repository's `.py` files that are not tests by SWE-bench's rule
 * (no path word, split on space, `_`, `/` and `.`, is test/tests/testing), each its path, a newline
 * and its content; the query is the whole problem statement; Lucene's BM25 (k1 0.9, b 0.4) over
 * Pyserini's default English analysis (lucene-analyzer.ts). A query with more than Lucene's 1024
 * clauses is cut to 80% of its text until it fits, as SWE-bench's script does.
 */

export function isSwebenchTest(path: string): boolean {
  return path
    .toLowerCase()
    .split(/[ _/.]/)
    .some((w) => w === "test" || w === "tests" || w === "testing");
}

const MAX_CLAUSES = 1024;

/** Merges the path's terms into a document's (the path is the first line of each document). */
function withPath(path: string, terms: TermVector): TermVector {
  return mergeVectors(vectorOf(luceneTermCounts(path)), terms);
}

/** The baseline's ranking: paths, best first (documents without a query term left out). */
export function baselineRanking(problemStatement: string, snapshot: RepoSnapshot, topK: number): string[] {
  const docs = snapshot.files.filter((f) => f.path.endsWith(".py") && !isSwebenchTest(f.path));
  let cutoff = problemStatement.length;
  let query = luceneTermCounts(problemStatement);
  while (query.size > MAX_CLAUSES) {
    cutoff = Math.round(cutoff * 0.8);
    query = luceneTermCounts(problemStatement.slice(0, cutoff));
  }
  const scores = bm25Scores(
    docs.map((f) => withPath(f.path, f.doc.luceneTerms)),
    query,
    PYSERINI_BM25,
  );
  return docs
    .map((f, i) => ({ path: f.path, s: scores[i] }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || (a.path < b.path ? -1 : 1))
    .slice(0, topK)
    .map((x) => x.path);
}
