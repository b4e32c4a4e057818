import { createHash } from "node:crypto";
import { type CodeDef, type CodeOutline, codeOutline } from "./code-outline.js";
import { type SourceLanguage, specOf } from "./languages.js";
import { luceneTermCounts } from "./lucene-analyzer.js";
import { type PythonOutline, pythonOutline } from "./python-defs.js";
import { blockVectors, mergeVectors, TermCounter, type TermVector, vectorOf } from "./tokenize.js";

/**
 * The files of a repository as the localizer sees them: text files up to a size limit. Analyses
 * are kept per git blob id in a {@link DocStore}, one per repository (repo-analyses.ts), so the
 * instances of one repository at different commits share the work for every file that did not
 * change between them.
 */

/** What a file is, for the ranking's priors: source, a test, documentation, or anything else. */
export type FileKind = "source" | "test" | "doc" | "other";

const SOURCE_EXT =
  /\.(py|pyx|pxd|pyi|c|h|cc|cpp|hpp|cxx|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|scala|rb|php|cs|swift|m|sh|pl|lua|r|jl|f90|f)$/i;
/** Folders of documentation, examples and benchmarks: not the code an issue is about, usually. */
const DOC_DIRS = new Set(["doc", "docs", "example", "examples", "benchmark", "benchmarks", "asv_bench"]);
const DOC_EXT = /\.(rst|md|txt|adoc|html|tex)$/i;

/**
 * Test files of the other languages by name: Go's `_test.go`, JS/TS's `.test.ts` and `.spec.js`,
 * Java's and PHP's `FooTest`, Ruby's `_spec.rb` and `_test.rb`, C's and C++'s `test_x.c` and
 * `x_unittest.cc`; and their test folders (`__tests__`, `spec`).
 */
const OTHER_TEST_NAME =
  /_test\.go$|\.(?:test|spec)\.[cm]?[jt]sx?$|(?:Tests?|IT)\.(?:java|kt|php)$|^Test[A-Z]\w*\.java$|_(?:spec|test)\.rb$|^test_\w+\.rb$|^test_\w+\.(?:c|cc|cpp|cxx)$|_(?:test|unittest)\.(?:c|cc|cpp|cxx)$/;
const OTHER_TEST_DIRS = new Set(["__tests__", "spec"]);
/** Folders of other projects' code or of build output, and minified files: kept, weighed as "other". */
const VENDORED_DIRS = new Set(["vendor", "node_modules", "third_party", "dist"]);
const MINIFIED = /\.min\.(?:js|css)$|\.map$/;

export function fileKind(path: string): FileKind {
  const parts = path.toLowerCase().split("/");
  const name = parts[parts.length - 1];
  const dirs = parts.slice(0, -1);
  const python = name.endsWith(".py");
  if (
    dirs.some((d) => d === "test" || d === "tests" || d === "testing") ||
    /^test_.*\.py$|_tests?\.py$|^tests?\.py$|^conftest\.py$/.test(name) ||
    (!python &&
      (OTHER_TEST_NAME.test(path.slice(path.lastIndexOf("/") + 1)) ||
        dirs.some((d) => OTHER_TEST_DIRS.has(d))))
  )
    return "test";
  if (!python && (MINIFIED.test(name) || dirs.some((d) => VENDORED_DIRS.has(d)))) return "other";
  if (DOC_EXT.test(name) || dirs.some((d) => DOC_DIRS.has(d))) return "doc";
  if (SOURCE_EXT.test(name)) return "source";
  return "other";
}

/** Limits on what is read. */
export interface ReadLimits {
  /** Files larger than this many bytes are skipped (counted in `skipped.huge`). */
  maxFileBytes: number;
}

export const DEFAULT_LIMITS: ReadLimits = { maxFileBytes: 1_000_000 };

/** Git's heuristic: a NUL byte in the first 8000 bytes makes a file binary. */
export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

/** The git blob id of `data` (sha1 of `blob <size>\0` + content). */
export function blobId(data: Buffer): string {
  return createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
}

const DEF_HINT =
  /^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)|^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)/gm;

/** Lines of one chunk of a file for chunk-level BM25. */
export const CHUNK_LINES = 60;

/** One analysed file content; the analyses are made when first asked for. */
export class Doc {
  private vec?: TermVector;
  private luc?: TermVector;
  private outline?: PythonOutline | null;
  private names?: Set<string>;
  /** The outline and the definition filter's names in another language (one language per content). */
  private code?: { language: SourceLanguage; outline: CodeOutline | null };
  private codeNames?: { language: SourceLanguage; names: Set<string> };
  private chunkVecs?: TermVector[];
  private chunkDf?: { n: number; length: number; df: TermVector };
  private lowered?: string;

  constructor(
    readonly blob: string,
    readonly text: string,
  ) {}

  /** The text in lower case (the message search), made when first asked for. */
  get lower(): string {
    this.lowered ??= this.text.toLowerCase();
    return this.lowered;
  }

  /**
   * The file's terms, analysed once: blocks of {@link CHUNK_LINES}/2 lines are counted, the file's
   * vector is their sum, and each window of {@link CHUNK_LINES} lines is two neighbouring blocks.
   */
  private analyse(): void {
    const blocks = blockVectors(this.text, CHUNK_LINES / 2);
    const whole = new TermCounter();
    for (const b of blocks) whole.addVector(b);
    this.vec = whole.take();
    this.chunkVecs =
      blocks.length === 1 ? blocks : blocks.slice(0, -1).map((b, k) => mergeVectors(b, blocks[k + 1]));
    const df = new TermCounter();
    let length = 0;
    for (const c of this.chunkVecs) {
      length += c.length;
      for (const id of c.ids) df.add(id);
    }
    this.chunkDf = { n: this.chunkVecs.length, length, df: df.take() };
  }

  /** Terms for the localizer's BM25 (tokenize.ts). */
  get terms(): TermVector {
    if (!this.vec) this.analyse();
    return this.vec!;
  }

  /** Terms of the file's windows of {@link CHUNK_LINES} lines (overlapping by half), for chunk-level BM25. */
  get chunks(): TermVector[] {
    if (!this.chunkVecs) this.analyse();
    return this.chunkVecs!;
  }

  /** How many windows the file has, their total length, and in how many of them each term is. */
  get chunkStats(): { n: number; length: number; df: TermVector } {
    if (!this.chunkDf) this.analyse();
    return this.chunkDf!;
  }

  /** Terms for the baseline's BM25 (lucene-analyzer.ts), of the text alone (the path is added per file). */
  get luceneTerms(): TermVector {
    this.luc ??= vectorOf(luceneTermCounts(this.text));
    return this.luc;
  }

  /** Definitions and imports (Python files only; null when the file does not parse as Python). */
  async pythonOutline(): Promise<PythonOutline | null> {
    if (this.outline === undefined) this.outline = await pythonOutline(this.text);
    return this.outline;
  }

  /** Definitions and imports in a language of lang/ (null when its grammar cannot parse the text). */
  async codeOutline(language: Exclude<SourceLanguage, "python">): Promise<CodeOutline | null> {
    if (this.code?.language !== language)
      this.code = { language, outline: await codeOutline(specOf(language), this.text) };
    return this.code.outline;
  }

  /** The definitions of the text read in `language` (none when it does not parse). */
  async defsIn(language: SourceLanguage): Promise<CodeDef[]> {
    if (language === "python") return (await this.pythonOutline())?.defs ?? [];
    return (await this.codeOutline(language))?.defs ?? [];
  }

  /** The names the text may define in `language` (the filter of {@link definedNames} and lang/'s). */
  namesDefinedIn(language: SourceLanguage): Set<string> {
    if (language === "python") return this.definedNames;
    if (this.codeNames?.language !== language)
      this.codeNames = { language, names: specOf(language).definedNames(this.text) };
    return this.codeNames.names;
  }

  /**
   * Names that follow `def` / `class` or start a `NAME =` line: which files are worth parsing for
   * a name. Only a filter: the definitions themselves come from the parser ({@link pythonOutline}).
   */
  get definedNames(): Set<string> {
    if (!this.names) {
      this.names = new Set();
      for (const m of this.text.matchAll(DEF_HINT)) this.names.add(m[1] ?? m[2]);
    }
    return this.names;
  }

  get bytes(): number {
    return this.text.length;
  }
}

/**
 * Analysed documents by blob id, one store per repository (repo-analyses.ts). A store keeps the
 * documents of the last two snapshots read into it: when a snapshot begins, the documents that
 * neither it nor the one before used are dropped, so the instances of a repository share the
 * files their neighbouring commits have in common, and a long list of instances at commits years
 * apart does not pile up every version of every file. Past `maxChars` characters of text in all,
 * documents are also dropped oldest first.
 */
export class DocStore {
  private readonly docs = new Map<string, Doc>();
  /** The snapshot each document was last used by. */
  private readonly lastUse = new Map<string, number>();
  private snapshots = 0;
  /** Blobs seen to be binary or over the size limit (with the limit they were over). */
  readonly rejected = new Map<string, { why: "binary" | "huge"; limit: number }>();
  private chars = 0;

  constructor(private readonly maxChars = 600_000_000) {}

  /** Documents held. */
  get size(): number {
    return this.docs.size;
  }

  get(blob: string): Doc | undefined {
    return this.docs.get(blob);
  }

  /** A snapshot begins (SnapshotBuilder): drops what neither it nor the previous one used; its number. */
  beginSnapshot(): number {
    const current = ++this.snapshots;
    for (const [blob, used] of this.lastUse) if (used < current - 1) this.drop(blob);
    return current;
  }

  /** Snapshot `n` uses `doc`. */
  use(doc: Doc, n: number): void {
    if (this.docs.get(doc.blob) === doc && (this.lastUse.get(doc.blob) ?? 0) < n)
      this.lastUse.set(doc.blob, n);
  }

  /** The document of `data` (an existing one when the content was seen before). */
  add(data: Buffer, blob = blobId(data)): Doc {
    const known = this.docs.get(blob);
    if (known) return known;
    const doc = new Doc(blob, data.toString("utf8"));
    this.docs.set(blob, doc);
    this.lastUse.set(blob, this.snapshots);
    this.chars += doc.bytes;
    for (const key of this.docs.keys()) {
      if (this.chars <= this.maxChars || key === blob) break;
      this.drop(key);
    }
    return doc;
  }

  private drop(blob: string): void {
    const doc = this.docs.get(blob);
    if (!doc) return;
    this.docs.delete(blob);
    this.lastUse.delete(blob);
    this.chars -= doc.bytes;
  }
}

/** A file of the snapshot: its path (relative to the repository root, `/`-separated) and content. */
export interface RepoFile {
  path: string;
  kind: FileKind;
  doc: Doc;
}

export interface RepoSnapshot {
  files: RepoFile[];
  /** Files left out: binary (a NUL byte), huge (over the limit), unreadable (gone or not a file). */
  skipped: { binary: number; huge: number; unreadable: number };
  /** Characters of text kept. */
  chars: number;
  /** Seconds spent reading. */
  seconds: number;
}

/** Collects files into a snapshot, applying the binary and size rules. */
export class SnapshotBuilder {
  readonly files: RepoFile[] = [];
  readonly skipped = { binary: 0, huge: 0, unreadable: 0 };
  private chars = 0;
  private readonly t0 = performance.now();
  /** This snapshot's number in the store. */
  private readonly n: number;

  constructor(
    readonly store: DocStore,
    readonly limits: ReadLimits,
  ) {
    this.n = store.beginSnapshot();
  }

  /** Adds a file already analysed (known blob). */
  addDoc(path: string, doc: Doc): void {
    this.files.push({ path, kind: fileKind(path), doc });
    this.chars += doc.bytes;
    this.store.use(doc, this.n);
  }

  /**
   * Adds the file of a known blob id without reading it when the store has that blob (or knows it
   * is binary or too large); false when the file must be read.
   */
  addKnown(path: string, blob: string): boolean {
    const doc = this.store.get(blob);
    if (doc) {
      if (doc.bytes > this.limits.maxFileBytes) this.skipped.huge++;
      else this.addDoc(path, doc);
      return true;
    }
    const r = this.store.rejected.get(blob);
    if (r && (r.why === "binary" || r.limit <= this.limits.maxFileBytes)) {
      this.skipped[r.why]++;
      return true;
    }
    return false;
  }

  /** Counts a file as skipped, remembering its blob. */
  reject(blob: string | undefined, why: "binary" | "huge"): void {
    this.skipped[why]++;
    if (blob) this.store.rejected.set(blob, { why, limit: this.limits.maxFileBytes });
  }

  /** Adds a file's content, unless it is binary or too large; `blob` when already known. */
  addData(path: string, data: Buffer, blob?: string): void {
    if (data.length > this.limits.maxFileBytes) this.reject(blob, "huge");
    else if (isBinary(data)) this.reject(blob ?? blobId(data), "binary");
    else this.addDoc(path, this.store.add(data, blob));
  }

  done(): RepoSnapshot {
    this.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      files: this.files,
      skipped: this.skipped,
      chars: this.chars,
      seconds: (performance.now() - this.t0) / 1000,
    };
  }
}
