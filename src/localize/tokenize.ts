/**
 * The code-aware tokenizer of the localizer's own BM25 index (the SWE-bench baseline has its own
 * analyzer, lucene-analyzer.ts). An identifier gives its whole lower-cased form and, when it is
 * compound, its parts: `separability_matrix` gives `separability_matrix`, `separability`, `matrix`;
 * `CompoundModel` gives `compoundmodel`, `compound`, `model`. Words of one letter, numbers and
 * stop words (English and Python keywords) are dropped. Terms are interned as integers in one
 * process-wide vocabulary, so documents analysed for one instance are reused by the next.
 */

const STOP = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with " +
    "we you i me my our your he she its can could would should may might must do does did done has have had having been being were am " +
    "so than too very just also only any all some each other more most own same both few from up down out over under again further once here " +
    "when where why how what which who whom whose while about above below after before between through during against off " +
    "def class self return import none true false elif else try except finally raise pass lambda yield global nonlocal assert del async await " +
    "cls args kwargs"
  ).split(" "),
);

/** Boundaries inside an identifier: underscores, lower→Upper, and the end of an ACRONYM before Word. */
const PARTS = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;

/** The process-wide vocabulary: term text → id (ids are never reused). */
const vocabulary = new Map<string, number>();
const termText: string[] = [];

/**
 * A copy of `s` that holds no reference to the text it was cut from. V8 keeps a slice of a long
 * string (an identifier cut from a file) as a view into that string, so a table keyed by such
 * slices would keep every file's whole text alive after its analysis was dropped.
 */
export function detached(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

export function termId(term: string): number {
  let id = vocabulary.get(term);
  if (id === undefined) {
    id = termText.length;
    const own = detached(term);
    vocabulary.set(own, id);
    termText.push(own);
  }
  return id;
}

/** The id of a term if it was ever seen, else undefined (a query term no document has). */
export function knownTermId(term: string): number | undefined {
  return vocabulary.get(term);
}

export function termOf(id: number): string {
  return termText[id];
}

/** The parts of one identifier, lower-cased, without stop words and one-letter parts. */
export function identifierTerms(ident: string): string[] {
  const whole = ident.toLowerCase().replace(/^_+|_+$/g, "");
  const out: string[] = [];
  if (whole.length >= 2 && !STOP.has(whole) && !/^[0-9_]+$/.test(whole)) out.push(whole);
  const parts = ident.match(PARTS) ?? [];
  if (parts.length > 1)
    for (const p of parts) {
      const w = p.toLowerCase();
      if (w.length >= 2 && !STOP.has(w) && !/^[0-9]+$/.test(w) && w !== whole) out.push(w);
    }
  return out;
}

/** Identifier → its term ids: a memo, emptied when a repository's analyses are dropped (repo-analyses.ts). */
const splitMemo = new Map<string, number[]>();

function idsOf(ident: string): number[] {
  let ids = splitMemo.get(ident);
  if (!ids) {
    ids = identifierTerms(ident).map(termId);
    if (splitMemo.size > 2_000_000) splitMemo.clear();
    splitMemo.set(detached(ident), ids);
  }
  return ids;
}

/** Empties the identifier memo (the vocabulary stays: kept analyses hold its ids). */
export function forgetIdentifierMemo(): void {
  splitMemo.clear();
}

/** Whether a character code can start an identifier (`[A-Za-z_]`), or continue one (`[A-Za-z0-9_]`). */
function startsIdent(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function continuesIdent(c: number): boolean {
  return startsIdent(c) || (c >= 48 && c <= 57);
}

/**
 * Walks the identifiers of `text` (in source and prose alike: a letter or underscore, then letters,
 * digits, underscores: `[A-Za-z_][A-Za-z0-9_]*`) with a hand-written scanner, which costs less than
 * a regular expression's match objects over every file of a repository. `line` is called after
 * every newline.
 */
function scan(text: string, visit: (id: number) => void, line?: () => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (startsIdent(c)) {
      let j = i + 1;
      while (j < n && continuesIdent(text.charCodeAt(j))) j++;
      const ids = idsOf(text.slice(i, j));
      for (let k = 0; k < ids.length; k++) visit(ids[k]);
      i = j;
    } else if (c >= 48 && c <= 57) {
      // a number, or the digits before an identifier's letters (`2x`: `x` is a term of its own)
      i++;
    } else {
      if (c === 10 && line) line();
      i++;
    }
  }
}

/** Calls `visit` with the id of every term of `text`, in order. */
export function forEachTerm(text: string, visit: (id: number) => void): void {
  scan(text, visit);
}

/**
 * The term vectors of a text's blocks of `lines` lines each (the last one may be shorter; a text
 * always has at least one block), in one pass over the text.
 */
export function blockVectors(text: string, lines: number): TermVector[] {
  const blocks: TermVector[] = [];
  const c = new TermCounter();
  let inBlock = 0;
  scan(
    text,
    (id) => c.add(id),
    () => {
      if (++inBlock === lines) {
        blocks.push(c.take());
        inBlock = 0;
      }
    },
  );
  blocks.push(c.take());
  return blocks;
}

/** Term ids of a text with their counts. */
export function termCounts(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  forEachTerm(text, (id) => counts.set(id, (counts.get(id) ?? 0) + 1));
  return counts;
}

/**
 * Counts term ids into a vector without a Map per document: one scratch array indexed by term id,
 * shared by the process (the analyses run one at a time), reset after each {@link TermCounter.take}.
 */
export class TermCounter {
  private static scratch = new Uint32Array(1 << 16);
  private readonly touched: number[] = [];

  add(id: number, n = 1): void {
    let s = TermCounter.scratch;
    if (id >= s.length) {
      const grown = new Uint32Array(Math.max(id + 1, s.length * 2));
      grown.set(s);
      TermCounter.scratch = s = grown;
    }
    if (s[id] === 0) this.touched.push(id);
    s[id] += n;
  }

  addVector(v: TermVector): void {
    for (let i = 0; i < v.ids.length; i++) this.add(v.ids[i], v.tfs[i]);
  }

  /** The counts so far as a vector; the counter is empty again afterwards. */
  take(): TermVector {
    const s = TermCounter.scratch;
    const ids = Uint32Array.from(this.touched).sort();
    const tfs = new Uint32Array(ids.length);
    let length = 0;
    for (let i = 0; i < ids.length; i++) {
      tfs[i] = s[ids[i]];
      length += tfs[i];
      s[ids[i]] = 0;
    }
    this.touched.length = 0;
    return { ids, tfs, length };
  }
}

/** A document's terms in the compact form the index keeps: sorted unique ids, their counts, the length. */
export interface TermVector {
  ids: Uint32Array;
  tfs: Uint32Array;
  length: number;
}

export function termVector(text: string): TermVector {
  const c = new TermCounter();
  forEachTerm(text, (id) => c.add(id));
  return c.take();
}

/** The union of two vectors, counts added. */
export function mergeVectors(a: TermVector, b: TermVector): TermVector {
  const ids = new Uint32Array(a.ids.length + b.ids.length);
  const tfs = new Uint32Array(ids.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.ids.length || j < b.ids.length) {
    if (j >= b.ids.length || (i < a.ids.length && a.ids[i] < b.ids[j])) {
      ids[k] = a.ids[i];
      tfs[k++] = a.tfs[i++];
    } else if (i >= a.ids.length || b.ids[j] < a.ids[i]) {
      ids[k] = b.ids[j];
      tfs[k++] = b.tfs[j++];
    } else {
      ids[k] = a.ids[i];
      tfs[k++] = a.tfs[i++] + b.tfs[j++];
    }
  }
  return { ids: ids.slice(0, k), tfs: tfs.slice(0, k), length: a.length + b.length };
}

export function vectorOf(counts: Map<number, number>): TermVector {
  const ids = Uint32Array.from(counts.keys()).sort();
  const tfs = new Uint32Array(ids.length);
  let length = 0;
  for (let i = 0; i < ids.length; i++) {
    tfs[i] = counts.get(ids[i])!;
    length += tfs[i];
  }
  return { ids, tfs, length };
}

/** The count of term `id` in `v` (binary search), 0 when absent. */
export function countIn(v: TermVector, id: number): number {
  let lo = 0;
  let hi = v.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = v.ids[mid];
    if (x === id) return v.tfs[mid];
    if (x < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}
