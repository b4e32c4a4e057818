import { bm25Scores, bm25Subset, OKAPI_BM25 } from "./bm25.js";
import type { CodeDef } from "./code-outline.js";
import type { IdentifierUse, IssueSignals } from "./issue-signals.js";
import type { SourceLanguage } from "./languages.js";
import type { RepoFile } from "./repo-files.js";
import type { RepoIndex } from "./repo-index.js";
import { countIn, identifierTerms, knownTermId, type TermVector, termCounts } from "./tokenize.js";

/**
 * The evidence for each file, as numbers in [0, 1] (one per {@link FEATURES} entry) with a
 * human-readable detail each: rank.ts weighs them (weights.ts) into the score and the `why` lines.
 */

export const FEATURES = [
  /** The innermost frame of a traceback that is in the repository (1 for the last traceback). */
  "traceback_innermost",
  /** Another frame of a traceback (less the farther from the innermost). */
  "traceback_frame",
  /** The outermost frame in the repository of the last traceback (where the user's call entered it). */
  "traceback_outermost",
  /** The file's path is written in the issue. */
  "path_named",
  /** The file's module is written as a dotted name (`pkg.sub.mod`, `from pkg.sub.mod import x`). */
  "module_named",
  /** Definitions of identifiers from the title / backticks / code / prose (see `definitionFeatures`). */
  "defines_title",
  "defines_backticked",
  "defines_code",
  "defines_prose",
  /** A definition written with its class or module (`Class.method`, `mod.func`). */
  "defines_qualified",
  /** Definitions whose names hold an identifier of the issue as a part (`_print_MatAdd` for `MatAdd`). */
  "defines_containing",
  /** An error message from the issue is in the file. */
  "error_message",
  /** BM25 of the file against the issue, relative to the best file, and 1 / its BM25 rank. */
  "bm25",
  "bm25_rank",
  /** BM25 of the file's best window of lines, relative to the best window of any file. */
  "bm25_chunk",
  /** The file's name (stem) is a word of the title / of the issue; its folder is a word of the issue. */
  "name_in_title",
  "name_in_issue",
  "folder_in_issue",
  /** The issue points at a test file (path, traceback) that is about this file (name or imports). */
  "tested_by_named_test",
  /** One of the first files of the ranking imports this file (its share of the best score; rank.ts). */
  "imported_by_top",
] as const;

export type Feature = (typeof FEATURES)[number];
export const NF = FEATURES.length;
const F = Object.fromEntries(FEATURES.map((f, i) => [f, i])) as Record<Feature, number>;

/** The evidence of one file: values and the detail behind each non-zero one. */
export class Evidence {
  readonly values = new Float64Array(NF);
  readonly details: string[] = new Array(NF).fill("");

  /** Keeps the larger value of a feature (and its detail). */
  max(f: Feature, value: number, detail: string): void {
    const i = F[f];
    if (value > this.values[i]) {
      this.values[i] = value;
      this.details[i] = detail;
    }
  }

  get(f: Feature): number {
    return this.values[F[f]];
  }
}

export class EvidenceTable {
  readonly byFile = new Map<number, Evidence>();
  of(file: number): Evidence {
    let e = this.byFile.get(file);
    if (!e) {
      e = new Evidence();
      this.byFile.set(file, e);
    }
    return e;
  }
}

const quote = (s: string) => `\`${s.length > 60 ? `${s.slice(0, 57)}...` : s}\``;

/** Frames of each file, for the symbols. */
export type FrameHits = Map<number, Array<{ line: number; func: string; weight: number }>>;

export function tracebackFeatures(sig: IssueSignals, index: RepoIndex, table: EvidenceTable): FrameHits {
  const hits: FrameHits = new Map();
  const last = sig.frames.reduce((m, f) => Math.max(m, f.traceback), -1);
  for (let t = 0; t <= last; t++) {
    const resolved: Array<{ line: number; func: string; file: number }> = [];
    for (const f of sig.frames) {
      if (f.traceback !== t) continue;
      const file = index.resolvePath(f.path);
      if (file !== undefined) resolved.push({ line: f.line, func: f.func, file });
    }
    const recency = t === last ? 1 : 0.7;
    if (t === last && resolved.length >= 2) {
      const { line, func, file } = resolved[0];
      table.of(file).max("traceback_outermost", 1, `line ${line}${func ? ` in ${func}` : ""}`);
    }
    resolved.forEach(({ line, func, file }, k) => {
      const fromInner = resolved.length - 1 - k;
      const where = `line ${line}${func ? ` in ${func}` : ""}`;
      const e = table.of(file);
      let weight: number;
      if (fromInner === 0) {
        weight = recency;
        e.max("traceback_innermost", weight, `innermost frame in the repository, ${where}`);
      } else {
        weight = recency * 0.8 ** (fromInner - 1);
        e.max("traceback_frame", weight, where);
      }
      const list = hits.get(file) ?? [];
      list.push({ line, func, weight });
      hits.set(file, list);
    });
  }
  return hits;
}

/** Paths and dotted module names; returns, per module file, the rest of dotted names under it. */
export function mentionFeatures(
  sig: IssueSignals,
  index: RepoIndex,
  table: EvidenceTable,
): Map<number, string[]> {
  const under = new Map<number, string[]>();
  for (const p of sig.paths) {
    const file = index.resolvePath(p);
    if (file !== undefined) table.of(file).max("path_named", 1, quote(p));
  }
  for (const d of sig.dotted) {
    const hit = index.resolveDotted(d);
    if (!hit) continue;
    const modulePart = hit.rest ? d.slice(0, d.length - hit.rest.length - 1) : d;
    const depth = modulePart.split(".").length;
    table
      .of(hit.file)
      .max("module_named", (hit.exact ? 1 : 0.6) * Math.min(1, 0.4 + 0.3 * depth), quote(modulePart));
    if (hit.rest) under.set(hit.file, [...(under.get(hit.file) ?? []), hit.rest]);
  }
  return under;
}

/** Names too common to say anything when an issue uses them. */
const GENERIC = new Set(
  (
    "print len range str int float list dict set tuple type object isinstance repr format open super property " +
    "staticmethod classmethod main test run get put init call new setup teardown value values items keys name data " +
    "__init__ __call__ __repr__ __str__ __eq__ __hash__ __getattr__ __getitem__ __new__ __enter__ __exit__ __module__"
  ).split(" "),
);

/** A word of prose counts as an identifier only when it looks like one (`snake_case`, `camelCase`, `x2`). */
function looksLikeIdentifier(id: string): boolean {
  return /_|[a-z][A-Z]|[A-Z].*[A-Z]|\d/.test(id);
}

/** A definition is evidence only when few files make it. */
const MAX_DEFINING_FILES = 25;

export interface DefHit {
  file: number;
  def: CodeDef;
  weight: number;
}

type Place = "title" | "backticked" | "code" | "prose";
const PLACE_FEATURE: Record<Place, Feature> = {
  title: "defines_title",
  backticked: "defines_backticked",
  code: "defines_code",
  prose: "defines_prose",
};

function placesOf(id: string, use: IdentifierUse): Place[] {
  const out: Place[] = [];
  if (use.title) out.push("title");
  if (use.backticked) out.push("backticked");
  if (use.code) out.push("code");
  if (out.length === 0 && looksLikeIdentifier(id)) out.push("prose");
  return out;
}

/**
 * Definitions of the issue's identifiers. For each place an identifier appears in, a file gets
 * 1 - exp(-Σ specificity) over the identifiers it defines, where specificity is
 * 1 / (files defining it)^0.75 (a name defined once in the repository says much, one defined in
 * twenty files little), times 0.4 for a plain assignment. Which files to parse comes from a cheap
 * filter (`Doc.definedNames`); what they define comes from the parser.
 */
export async function definitionFeatures(
  sig: IssueSignals,
  files: RepoFile[],
  languages: Array<SourceLanguage | undefined>,
  under: Map<number, string[]>,
  table: EvidenceTable,
): Promise<DefHit[]> {
  const wanted = [...sig.identifiers.entries()]
    .map(([id, use]) => ({
      id,
      use,
      places: placesOf(id, use),
      // a plain word of the title (`apart`, `zero`) names a module-level function or class, not any method
      topLevelOnly: !use.backticked && !use.code && !looksLikeIdentifier(id),
    }))
    .filter((w) => w.places.length > 0 && !GENERIC.has(w.id));
  const candidates = new Map<string, number[]>(wanted.map((w) => [w.id, []]));
  files.forEach((f, i) => {
    const language = languages[i];
    if (language === undefined) return;
    const names = f.doc.namesDefinedIn(language);
    for (const w of wanted) if (names.has(w.id)) candidates.get(w.id)!.push(i);
  });
  const dotted = sig.dotted;
  const hits: DefHit[] = [];
  const sums = new Map<number, Record<Place, { sum: number; names: string[] }>>();
  const qualifiedSums = new Map<number, { sum: number; names: string[] }>();
  for (const { id, places, topLevelOnly } of wanted) {
    const where = candidates.get(id)!;
    if (where.length === 0 || where.length > MAX_DEFINING_FILES) continue;
    const best = new Map<number, { def: CodeDef; kind: number; qualified: boolean }>();
    for (const i of where) {
      for (const def of await files[i].doc.defsIn(languages[i]!)) {
        if (def.name !== id || def.local || (topLevelOnly && def.qualname !== def.name)) continue;
        const kind = def.kind === "variable" ? 0.4 : 1;
        const qualified =
          def.qualname.includes(".") &&
          (dotted.some((d) => d === def.qualname || d.endsWith(`.${def.qualname}`)) ||
            (under.get(i) ?? []).some((r) => r === def.qualname || r.startsWith(`${def.qualname}.`)));
        const prev = best.get(i);
        if (!prev || kind + (qualified ? 1 : 0) > prev.kind + (prev.qualified ? 1 : 0))
          best.set(i, { def, kind, qualified });
        hits.push({ file: i, def, weight: kind * (qualified ? 2 : 1) });
      }
    }
    if (best.size === 0) continue;
    const specificity = 1 / best.size ** 0.75;
    for (const [file, { def, kind, qualified }] of best) {
      const s = sums.get(file) ?? {
        title: { sum: 0, names: [] },
        backticked: { sum: 0, names: [] },
        code: { sum: 0, names: [] },
        prose: { sum: 0, names: [] },
      };
      for (const p of places) {
        s[p].sum += specificity * kind;
        s[p].names.push(def.qualname);
      }
      sums.set(file, s);
      if (qualified) {
        const q = qualifiedSums.get(file) ?? { sum: 0, names: [] };
        q.sum += specificity;
        q.names.push(def.qualname);
        qualifiedSums.set(file, q);
      }
    }
  }
  const shown = (names: string[]) =>
    names.slice(0, 4).map(quote).join(", ") + (names.length > 4 ? ` and ${names.length - 4} more` : "");
  for (const [file, s] of sums)
    for (const p of Object.keys(s) as Place[])
      if (s[p].sum > 0) table.of(file).max(PLACE_FEATURE[p], 1 - Math.exp(-s[p].sum), shown(s[p].names));
  for (const [file, q] of qualifiedSums)
    table.of(file).max("defines_qualified", 1 - Math.exp(-q.sum), shown(q.names));
  await containingFeatures(wanted, files, languages, table, shown);
  return hits;
}

/** Whether `name` holds `id` as one of its `_`-separated parts (`_print_MatAdd`, `test_MatAdd_x`). */
function holdsPart(name: string, id: string): boolean {
  if (name === id || name.length <= id.length) return false;
  const at = name.indexOf(id);
  if (at < 0) return false;
  const before = at === 0 || name[at - 1] === "_";
  const after = at + id.length === name.length || name[at + id.length] === "_";
  return before && after;
}

async function containingFeatures(
  wanted: Array<{ id: string; use: IdentifierUse; places: Place[] }>,
  files: RepoFile[],
  languages: Array<SourceLanguage | undefined>,
  table: EvidenceTable,
  shown: (names: string[]) => string,
): Promise<void> {
  const ids = wanted
    .filter(
      (w) => w.id.length >= 4 && (w.use.title || w.use.backticked || w.use.code) && /[A-Z_]|\d/.test(w.id),
    )
    .map((w) => w.id);
  if (ids.length === 0) return;
  const where = new Map<string, Map<number, string[]>>(ids.map((id) => [id, new Map()]));
  files.forEach((f, i) => {
    const language = languages[i];
    if (language === undefined || f.kind !== "source") return;
    for (const name of f.doc.namesDefinedIn(language))
      for (const id of ids)
        if (holdsPart(name, id)) {
          const m = where.get(id)!;
          m.set(i, [...(m.get(i) ?? []), name]);
        }
  });
  const sums = new Map<number, { sum: number; names: string[] }>();
  for (const [, byFile] of where) {
    if (byFile.size === 0 || byFile.size > MAX_DEFINING_FILES) continue;
    const specificity = 1 / byFile.size ** 0.75;
    for (const [file, names] of byFile) {
      const defs = (await files[file].doc.defsIn(languages[file]!)).filter(
        (d) => !d.local && names.includes(d.name),
      );
      if (defs.length === 0) continue;
      const s = sums.get(file) ?? { sum: 0, names: [] };
      s.sum += specificity;
      s.names.push(...defs.slice(0, 2).map((d) => d.qualname));
      sums.set(file, s);
    }
  }
  for (const [file, s] of sums)
    table.of(file).max("defines_containing", 1 - Math.exp(-s.sum), shown(s.names));
}

/** Literal pieces of an error message (quoted values, numbers and reprs are the variable parts). */
export function messagePieces(message: string): string[] {
  return message
    .split(/'[^']*'|"[^"]*"|<[^>]*>|\{[^}]*\}|\([^)]*\)|\[[^\]]*\]|\b\d[\w.]*\b|\s[-+*/=]\s/)
    .map((s) => s.replace(/\s+/g, " ").replace(/^[\s:,.;]+|[\s:,.;]+$/g, ""))
    .filter((s) => s.length >= 12 && /[a-z]{3}/i.test(s));
}

/** The longest word-prefix (12 characters or more) of each message piece that some file holds verbatim. */
export function messageFeatures(sig: IssueSignals, files: RepoFile[], table: EvidenceTable): void {
  const pieces = [...new Set(sig.messages.slice(0, 12).flatMap(messagePieces))].slice(0, 24);
  for (const piece of pieces) {
    const words = piece.split(" ");
    for (let n = words.length; n >= 2; n--) {
      const phrase = words.slice(0, n).join(" ");
      if (phrase.length < 12) break;
      const lower = phrase.toLowerCase();
      // only files with every term of the phrase can hold it
      const ids = [...new Set(phrase.match(/[A-Za-z_]\w*/g) ?? [])].flatMap(identifierTerms).map(knownTermId);
      if (ids.some((t) => t === undefined)) continue;
      const holders: number[] = [];
      files.forEach((f, i) => {
        if (ids.every((t) => countIn(f.doc.terms, t!) > 0) && f.doc.lower.includes(lower)) holders.push(i);
      });
      if (holders.length === 0) continue;
      if (holders.length <= 6)
        for (const i of holders)
          table.of(i).max("error_message", Math.min(1, phrase.length / 30), quote(phrase));
      break;
    }
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** BM25 of every file against the whole issue text (query counts damped: 1 + ln count). */
export function bm25Features(sig: IssueSignals, text: string, files: RepoFile[], table: EvidenceTable): void {
  const query = new Map<number, number>();
  const title = termCounts(sig.title);
  for (const [id, c] of termCounts(text)) query.set(id, 1 + Math.log(c) + (title.has(id) ? 1 : 0));
  // an option's name as code spells it (`import_mode`, `importmode` for `--import-mode`)
  for (const name of sig.optionNames) {
    const id = knownTermId(identifierTerms(name)[0] ?? "");
    if (id !== undefined && !query.has(id)) query.set(id, 1);
  }
  const scores = bm25Scores(
    files.map((f) => f.doc.terms),
    query,
    OKAPI_BM25,
  );
  const order = [...scores.keys()].filter((i) => scores[i] > 0).sort((a, b) => scores[b] - scores[a]);
  const best = order.length ? scores[order[0]] : 0;
  order.forEach((i, rank) => {
    const rel = scores[i] / best;
    if (rel < 0.05 && rank >= 50) return;
    const e = table.of(i);
    e.max("bm25", rel, `${round(rel)} of the best`);
    e.max("bm25_rank", 1 / (rank + 1), `rank ${rank + 1}`);
  });
  // The same over windows of lines, so that a long file is neither favoured nor hidden by its
  // length: statistics over every window of the repository, scores for the files that matched at all.
  let n = 0;
  let length = 0;
  const df = new Map<number, number>();
  for (const f of files) {
    const st = f.doc.chunkStats;
    n += st.n;
    length += st.length;
    for (const term of query.keys()) {
      const c = countIn(st.df, term);
      if (c > 0) df.set(term, (df.get(term) ?? 0) + c);
    }
  }
  const pool = [...new Set([...order.slice(0, CHUNK_POOL), ...table.byFile.keys()])];
  const owner: number[] = [];
  const chunks: TermVector[] = [];
  for (const i of pool)
    for (const c of files[i].doc.chunks) {
      owner.push(i);
      chunks.push(c);
    }
  const cs = bm25Subset(chunks, query, { n, avgLength: length / (n || 1), df }, OKAPI_BM25);
  const perFile = new Map<number, number>();
  cs.forEach((s, k) => {
    if (s > (perFile.get(owner[k]) ?? 0)) perFile.set(owner[k], s);
  });
  let bestChunk = 0;
  for (const s of perFile.values()) bestChunk = Math.max(bestChunk, s);
  if (bestChunk > 0)
    for (const [i, s] of perFile) {
      const rel = s / bestChunk;
      if (rel >= 0.3) table.of(i).max("bm25_chunk", rel, `${round(rel)} of the best`);
    }
}

/** Files whose windows are scored: the best by whole-file BM25 (and every file with other evidence). */
const CHUNK_POOL = 300;

/** Generic file and folder names that say nothing when an issue uses the word. */
const GENERIC_NAMES = new Set([
  "__init__",
  "init",
  "utils",
  "util",
  "core",
  "base",
  "main",
  "common",
  "misc",
  "api",
  "types",
  "compat",
  "helpers",
  "tests",
  "test",
]);

/** The file's name and folder as words of the issue. */
export function nameFeatures(sig: IssueSignals, text: string, files: RepoFile[], table: EvidenceTable): void {
  const words = (s: string) => {
    const out = new Set<string>();
    for (const m of s.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
      out.add(m[0].toLowerCase());
      for (const t of identifierTerms(m[0])) out.add(t);
    }
    return out;
  };
  const titleWords = words(sig.title);
  const issueWords = words(text);
  // words the issue uses as code: a title word that is also one of them is likely a name, not prose
  const codeWords = new Set<string>();
  for (const [id, use] of sig.identifiers) if (use.code || use.backticked) codeWords.add(id.toLowerCase());
  // the package folders (`sympy/`, `src/flask/`): every issue of the project names them
  const packages = new Set(
    files
      .map((f) => f.path.toLowerCase().split("/"))
      .map((p) => (p[0] === "src" || p[0] === "lib" ? p[1] : p[0])),
  );
  // a folder that holds a large share of the files (the package itself) says nothing
  const folderCount = new Map<string, number>();
  for (const f of files) {
    const parts = f.path.toLowerCase().split("/");
    if (parts.length > 1)
      folderCount.set(parts[parts.length - 2], (folderCount.get(parts[parts.length - 2]) ?? 0) + 1);
  }
  files.forEach((f, i) => {
    const parts = f.path.toLowerCase().split("/");
    const stem = parts[parts.length - 1].replace(/\.[^.]+$/, "");
    const folder = parts.length > 1 ? parts[parts.length - 2] : "";
    if (!GENERIC_NAMES.has(stem) && stem.length >= 3) {
      // `sympy_parser` is in the issue as a whole, or `parser`/`sympy` as its parts
      const stemParts = identifierTerms(stem);
      const inTitle = titleWords.has(stem)
        ? 1
        : stemParts.length > 1 && stemParts.every((p) => titleWords.has(p))
          ? 0.7
          : 0;
      const inIssue = issueWords.has(stem)
        ? 1
        : stemParts.length > 1 && stemParts.every((p) => issueWords.has(p))
          ? 0.7
          : 0;
      if (inTitle) table.of(i).max("name_in_title", inTitle * (codeWords.has(stem) ? 1 : 0.5), quote(stem));
      if (inIssue) table.of(i).max("name_in_issue", inIssue, quote(stem));
    }
    if (
      folder &&
      !GENERIC_NAMES.has(folder) &&
      folder.length >= 3 &&
      folderCount.get(folder)! <= 0.15 * files.length &&
      !packages.has(folder) &&
      issueWords.has(folder.replace(/^_/, ""))
    )
      table.of(i).max("folder_in_issue", 1, quote(folder));
  });
}
