import type { GrammarFile } from "./grammars.js";

/**
 * What the localizer knows of one language besides Python: its grammar, its queries for
 * definitions and imports (code-outline.ts says what they capture), a cheap filter for the names
 * a file may define, how a test file's name points at the file it tests, and how an import
 * resolves to files of the repository.
 */

export type LanguageId =
  | "go"
  | "java"
  | "javascript"
  | "typescript"
  | "tsx"
  | "php"
  | "ruby"
  | "rust"
  | "c"
  | "cpp";

/** Which `@import.*` capture an import came from (code-outline.ts says what each one means). */
export type ImportKind = "path" | "module" | "mod";

/** One import as written (`./util`, `example.com/app/store`, `util/strbuf.h`, `crate::lexer::Token`). */
export interface CodeImport {
  kind: ImportKind;
  spec: string;
}

/** Lookups over a snapshot's paths that import resolution needs (repo-index.ts). */
export interface RepoPaths {
  /** The file at exactly this path. */
  file(path: string): number | undefined;
  /** Files whose path is `tail` or ends with `/tail`. */
  endingWith(tail: string): number[];
  /** Files directly in folder `dir` ("" for the top). */
  inDir(dir: string): number[];
  /** The path of file `file`. */
  pathOf(file: number): string;
  /** The text of the file at this path. */
  text(path: string): string | undefined;
}

export interface LanguageSpec {
  id: LanguageId;
  grammar: GrammarFile;
  /** Query for definitions (`@definition.*`, `@name`, `@receiver`, `@scope`). */
  defs: string;
  /** Query for imports (`@import.path`, `@import.module`, `@import.mod`). */
  imports: string;
  /**
   * Names the text may define, by regular expressions over its lines: which files are worth
   * parsing for a name. A filter only (a few extra names cost a parse); the definitions themselves
   * come from the parser.
   */
  definedNames(text: string): Set<string>;
  /** The bare name of a definition from its name node's text (default: the text). */
  nameOf?(text: string): string;
  /** The imports an `@import.*` capture's text stands for (default: the text, unquoted). */
  importSpecs?(text: string, kind: ImportKind): string[];
  /** The names of the files a test file is about, from its own name (`store_test.go` → `store.go`). */
  testedNames(name: string): string[];
  /** The repository files an import of file `importer` reaches. */
  resolve(imp: CodeImport, importer: string, repo: RepoPaths): number[];
}

/** Every name the regular expressions find (the first group of each match that took part). */
export function namesMatching(text: string, patterns: RegExp[]): Set<string> {
  const out = new Set<string>();
  for (const re of patterns)
    for (const m of text.matchAll(re)) {
      const name = m.slice(1).find((g) => g !== undefined);
      if (name) out.add(name);
    }
  return out;
}

/** `a/b/../c/./d` → `a/c/d`; null when it climbs above the top. */
export function normalizePath(path: string): string | null {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(part);
  }
  return out.join("/");
}

/** The folder of a repository path ("" for a top-level file). */
export function dirOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}

/** `dir` joined with a relative path, normalized (null above the top). */
export function joinPath(dir: string, rel: string): string | null {
  return normalizePath(dir ? `${dir}/${rel}` : rel);
}

/** The first of `paths` that is a file of the repository, as a list of at most one. */
export function firstFile(repo: RepoPaths, paths: Array<string | null>): number[] {
  for (const p of paths) {
    if (p === null) continue;
    const f = repo.file(p);
    if (f !== undefined) return [f];
  }
  return [];
}

/**
 * The file a path names by its longest tail among the repository's files: the files ending with
 * the whole path, else with its last `n - 1` parts, ... down to `minParts` parts; only a tail that
 * one file has counts.
 */
export function uniqueTail(repo: RepoPaths, path: string, minParts: number): number[] {
  const parts = path.split("/").filter((p) => p !== "");
  for (let n = parts.length; n >= Math.max(1, minParts); n--) {
    const hits = repo.endingWith(parts.slice(parts.length - n).join("/"));
    if (hits.length === 1) return hits;
    if (hits.length > 1) return [];
  }
  return [];
}
