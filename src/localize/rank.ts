import type { CodeDef } from "./code-outline.js";
import {
  bm25Features,
  type DefHit,
  definitionFeatures,
  EvidenceTable,
  FEATURES,
  type Feature,
  type FrameHits,
  mentionFeatures,
  messageFeatures,
  nameFeatures,
  tracebackFeatures,
} from "./features.js";
import { importedFiles } from "./imports.js";
import { issueSignals } from "./issue-signals.js";
import { fileLanguages, type SourceLanguage, specOf } from "./languages.js";
import { CHUNK_LINES, type FileKind, type RepoFile, type RepoSnapshot } from "./repo-files.js";
import { RepoIndex } from "./repo-index.js";
import type { LocalizedFile, LocalizedSymbol } from "./types.js";
import { DEFAULT_WEIGHTS, type RankWeights } from "./weights.js";

/**
 * The ranking: the evidence of each file (features.ts) weighed into one score, scaled by the
 * file's kind (tests and documentation count less but stay findable), with the `why` lines in the
 * order of what each piece of evidence added; then the symbols of the top files.
 */

export interface RankOptions {
  topK: number;
  topSymbols: number;
  weights?: RankWeights;
}

const LABELS: Record<Feature, (detail: string) => string | null> = {
  traceback_innermost: (d) => `traceback: ${d}`,
  traceback_frame: (d) => `traceback frame: ${d}`,
  traceback_outermost: (d) => `traceback: outermost frame in the repository, ${d}`,
  path_named: (d) => `path named in the issue: ${d}`,
  module_named: (d) => `module named in the issue: ${d}`,
  defines_title: (d) => `defines ${d}, named in the title`,
  defines_backticked: (d) => `defines ${d}, in backticks in the issue`,
  defines_code: (d) => `defines ${d}, used in the issue's code`,
  defines_prose: (d) => `defines ${d}, named in the issue`,
  defines_qualified: (d) => `defines ${d}, written with its class or module in the issue`,
  defines_containing: (d) => `defines ${d}, named after an identifier of the issue`,
  error_message: (d) => `error message found: ${d}`,
  bm25: (d) => `text similarity (BM25): ${d}`,
  bm25_rank: () => null,
  bm25_chunk: (d) => `text similarity of its best ${CHUNK_LINES} lines (BM25): ${d}`,
  name_in_title: (d) => `file name ${d} is a word of the title`,
  name_in_issue: (d) => `file name ${d} is a word of the issue`,
  folder_in_issue: (d) => `folder ${d} is a word of the issue`,
  tested_by_named_test: (d) => `tested by ${d}, which the issue points at`,
  imported_by_top: (d) => `imported by ${d}`,
};

/**
 * Source files a test file is about: by its name (`test_mod.py` → `mod.py`; in the other languages
 * their own way, lang/*.ts `testedNames`: `store_test.go` → `store.go`, `parser.test.ts` →
 * `parser.ts`), and the project files it imports.
 */
async function testedFiles(
  test: RepoFile,
  language: SourceLanguage | undefined,
  files: RepoFile[],
  index: RepoIndex,
): Promise<number[]> {
  const out = new Set<number>();
  const name = test.path.replace(/^.*\//, "");
  // by name only a test module's (`test_mod.py`, `mod_test.py`): an `__init__.py` or a data file among the tests is about nothing
  const pyStem = name.replace(/^test_|_test(?=\.py$)/, "");
  const stems =
    language === undefined || language === "python"
      ? pyStem !== name
        ? [pyStem]
        : []
      : specOf(language).testedNames(name);
  for (const stem of stems)
    files.forEach((f, i) => {
      if (f.kind === "source" && (f.path === stem || f.path.endsWith(`/${stem}`))) out.add(i);
    });
  for (const i of await importedFiles(test, index, language))
    if (files[i].kind === "source" && !files[i].path.endsWith("__init__.py")) out.add(i);
  return [...out];
}

/** The evidence of every file for an issue (before weighing). */
export interface Gathered {
  files: RepoFile[];
  /** The language each file's definitions and imports are read in (languages.ts fileLanguages). */
  languages: Array<SourceLanguage | undefined>;
  index: RepoIndex;
  table: EvidenceTable;
  defHits: DefHit[];
  frameHits: FrameHits;
  /** Milliseconds each step took (for the benchmark's breakdown). */
  phases: Record<string, number>;
}

export async function gatherEvidence(text: string, snapshot: RepoSnapshot): Promise<Gathered> {
  const phases: Record<string, number> = {};
  let clock = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    phases[name] = (phases[name] ?? 0) + now - clock;
    clock = now;
  };
  const files = snapshot.files;
  const index = RepoIndex.of(snapshot);
  const sig = issueSignals(text);
  const table = new EvidenceTable();
  const frameHits = tracebackFeatures(sig, index, table);
  const under = mentionFeatures(sig, index, table);
  lap("signals");
  const languages = fileLanguages(files);
  const defHits = await definitionFeatures(sig, files, languages, under, table);
  lap("definitions");
  // BM25 first: it analyses every file, which the message search's term filter relies on
  bm25Features(sig, text, files, table);
  lap("bm25");
  messageFeatures(sig, files, table);
  lap("messages");
  nameFeatures(sig, text, files, table);
  lap("names");
  // test files the issue points at: by path, by traceback, or by a test function it names
  const named = new Set<number>();
  for (const [file, e] of table.byFile)
    if (
      files[file].kind === "test" &&
      (e.get("path_named") > 0 || e.get("traceback_innermost") > 0 || e.get("traceback_frame") > 0)
    )
      named.add(file);
  for (const h of defHits) if (files[h.file].kind === "test" && /^test/i.test(h.def.name)) named.add(h.file);
  for (const t of [...named].slice(0, 8))
    for (const target of await testedFiles(files[t], languages[t], files, index))
      table.of(target).max("tested_by_named_test", 1, files[t].path);
  lap("tests");
  return { files, languages, index, table, defHits, frameHits, phases };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function weighed(values: ArrayLike<number>, kind: FileKind, w: RankWeights): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] * w.features[FEATURES[i]];
  return s * w.kinds[kind];
}

/** The symbols of the top files: definitions the issue names, and the functions of traceback frames. */
function symbolsOf(
  top: Array<{ file: number; score: number }>,
  g: Gathered,
  outlines: Map<number, CodeDef[]>,
  limit: number,
): LocalizedSymbol[] {
  const best = top[0]?.score || 1;
  const share = new Map(top.map((t) => [t.file, t.score / best]));
  const scores = new Map<string, LocalizedSymbol>();
  const bump = (file: number, def: CodeDef, add: number) => {
    const key = `${file}\0${def.qualname}\0${def.line}`;
    const s = scores.get(key) ?? {
      path: g.files[file].path,
      name: def.qualname,
      line: def.line,
      score: share.get(file) ?? 0,
    };
    s.score += add;
    scores.set(key, s);
  };
  for (const h of g.defHits) if (share.has(h.file)) bump(h.file, h.def, h.weight);
  for (const [file, frames] of g.frameHits) {
    if (!share.has(file)) continue;
    const defs = outlines.get(file) ?? [];
    for (const fr of frames) {
      // the innermost function or class that holds the frame's line
      let inner: CodeDef | undefined;
      for (const d of defs)
        if (
          d.kind !== "variable" &&
          d.line <= fr.line &&
          fr.line <= d.endLine &&
          (!inner || d.line >= inner.line)
        )
          inner = d;
      if (inner) bump(file, inner, fr.weight);
    }
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line))
    .slice(0, limit)
    .map((s) => ({ ...s, score: round(s.score) }));
}

export interface Ranking {
  files: LocalizedFile[];
  symbols: LocalizedSymbol[];
  /** Milliseconds per step ({@link Gathered.phases}). */
  phases: Record<string, number>;
}

function whyOf(values: Float64Array, details: string[], kind: FileKind, w: RankWeights): string[] {
  const parts: Array<{ value: number; text: string }> = [];
  for (let i = 0; i < values.length; i++) {
    const f = FEATURES[i];
    const value = values[i] * w.features[f];
    if (!(value > 0)) continue;
    let text = LABELS[f](details[i]);
    if (f === "bm25") text = `${text}, ${details[FEATURES.indexOf("bm25_rank")]}`;
    if (text) parts.push({ value, text });
  }
  parts.sort((a, b) => b.value - a.value);
  const why = parts.map((p) => p.text);
  if (w.kinds[kind] !== 1) why.push(`${kind} file: score x${w.kinds[kind]}`);
  return why;
}

/** Files whose imports are followed: the first of the ranking by the other evidence. */
const IMPORTERS = 3;
/** Files larger than this are not parsed for their imports (the cost of the parse). */
const MAX_IMPORTER_CHARS = 400_000;

/**
 * The module graph: a file that one of the first {@link IMPORTERS} files imports gets the share of
 * the best score that the importer has (the bug is often in what the code the issue points at
 * calls). Set after the other evidence is weighed, since it follows from the ranking.
 */
async function importFeatures(ranked: Array<{ file: number; score: number }>, g: Gathered): Promise<void> {
  const best = ranked[0]?.score ?? 0;
  if (!(best > 0)) return;
  const index = g.index;
  for (const [k, t] of ranked.slice(0, IMPORTERS).entries()) {
    const f = g.files[t.file];
    const language = g.languages[t.file];
    if (f.kind !== "source" || language === undefined || f.doc.bytes > MAX_IMPORTER_CHARS) continue;
    for (const target of await importedFiles(f, index, language))
      if (g.files[target].kind === "source")
        g.table.of(target).max("imported_by_top", t.score / best, `${f.path} (ranked ${k + 1})`);
  }
}

/** Ranks the files of `snapshot` for the issue `text`. */
export async function rankFiles(text: string, snapshot: RepoSnapshot, opts: RankOptions): Promise<Ranking> {
  const w = opts.weights ?? DEFAULT_WEIGHTS;
  const g = await gatherEvidence(text, snapshot);
  const order = () =>
    [...g.table.byFile.entries()]
      .map(([file, e]) => ({ file, e, score: weighed(e.values, g.files[file].kind, w) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || (g.files[a.file].path < g.files[b.file].path ? -1 : 1));
  const t0 = performance.now();
  await importFeatures(order(), g);
  const ranked = order();
  g.phases.imports = performance.now() - t0;
  const top = ranked.slice(0, Math.max(opts.topK, 1));
  const outlines = new Map<number, CodeDef[]>();
  for (const t of top.slice(0, 5)) {
    const language = g.languages[t.file];
    if (language !== undefined && g.frameHits.has(t.file))
      outlines.set(t.file, await g.files[t.file].doc.defsIn(language));
  }
  return {
    files: top.map(({ file, e, score }) => ({
      path: g.files[file].path,
      score: round(score),
      why: whyOf(e.values, e.details, g.files[file].kind, w),
    })),
    symbols: symbolsOf(top.slice(0, 10), g, outlines, opts.topSymbols),
    phases: g.phases,
  };
}
