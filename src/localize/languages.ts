import { C, CPP } from "./lang/c-family.js";
import { GO } from "./lang/go.js";
import { JAVA } from "./lang/java.js";
import { JAVASCRIPT, TSX, TYPESCRIPT } from "./lang/javascript.js";
import { PHP } from "./lang/php.js";
import { RUBY } from "./lang/ruby.js";
import { RUST } from "./lang/rust.js";
import type { LanguageSpec } from "./lang/spec.js";

/**
 * Which grammar reads a file, from its name: Python (`.py`, python-defs.ts) or one of lang/. A C
 * header (`.h`) is read as C++ when its text uses C++ (`namespace`, `template <`, `class X {`,
 * access labels), else as C.
 */

export type SourceLanguage = "python" | LanguageSpec["id"];

const BY_EXT: Record<string, LanguageSpec["id"]> = {
  go: "go",
  java: "java",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  php: "php",
  rb: "ruby",
  rs: "rust",
  c: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  ipp: "cpp",
};

const SPECS: Record<LanguageSpec["id"], LanguageSpec> = {
  go: GO,
  java: JAVA,
  javascript: JAVASCRIPT,
  typescript: TYPESCRIPT,
  tsx: TSX,
  php: PHP,
  ruby: RUBY,
  rust: RUST,
  c: C,
  cpp: CPP,
};

const CPP_HEADER =
  /^[ \t]*(?:namespace\b|template[ \t]*<|class[ \t]+\w+[^;\n]*\{|(?:public|private|protected)[ \t]*:)/m;

/** The language a file is read in, or undefined for a file no grammar here reads. */
export function languageOf(path: string, text: string): SourceLanguage | undefined {
  if (path.endsWith(".py")) return "python";
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  if (ext === "h") return CPP_HEADER.test(text) ? "cpp" : "c";
  if (name.endsWith(".min.js")) return undefined;
  return BY_EXT[ext];
}

/** The spec of a language of lang/. */
export function specOf(language: LanguageSpec["id"]): LanguageSpec {
  return SPECS[language];
}

/**
 * The language each file's definitions and imports are read in, or undefined where they are not
 * read (the file is then only text, for BM25 and the rest). Python's files are always read; the
 * other languages' unless most of the source files the grammars read are Python's: a Python
 * project's C extensions, vendored C libraries and JavaScript assets stay text, so its ranking is
 * what it was before the other grammars came (and what the Lite figures measured).
 */
export function fileLanguages(
  files: ReadonlyArray<{ path: string; doc: { text: string } }>,
): Array<SourceLanguage | undefined> {
  const languages = files.map((f) => languageOf(f.path, f.doc.text));
  let python = 0;
  let other = 0;
  for (const l of languages) {
    if (l === "python") python++;
    else if (l !== undefined) other++;
  }
  if (python > other) return languages.map((l) => (l === "python" ? l : undefined));
  return languages;
}
