import { type SourceLanguage, specOf } from "./languages.js";
import type { PyImport } from "./python-defs.js";
import type { RepoFile } from "./repo-files.js";
import type { RepoIndex } from "./repo-index.js";

/** At most this many `module.Name` uses of a plain `import module` are followed per import. */
const MAX_ATTRIBUTES = 20;

/** The dotted module an import names, relative imports resolved against the importing file's folder. */
function moduleOf(imp: PyImport, importer: string): string {
  if (imp.level === 0) return imp.module;
  const pkg = importer.split("/").slice(0, -1);
  return [...pkg.slice(0, pkg.length - (imp.level - 1)), ...(imp.module ? imp.module.split(".") : [])].join(
    ".",
  );
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The names a file reaches through a plain `import pkg.mod`: the `Name` of each `pkg.mod.Name` in its text. */
function attributesUsed(text: string, module: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(new RegExp(`(?<![\\w.])${escapeRegExp(module)}\\.([A-Za-z_]\\w*)`, "g"))) {
    found.add(m[1]);
    if (found.size >= MAX_ATTRIBUTES) break;
  }
  return [...found];
}

/**
 * Where a package's `__init__.py` gets `name` from when it re-exports it (`from .code import
 * ExceptionInfo`): that module's file, or undefined when the package defines it itself or
 * imports it from outside the repository.
 */
async function reExported(init: RepoFile, name: string, index: RepoIndex): Promise<number | undefined> {
  const outline = await init.doc.pythonOutline();
  for (const imp of outline?.imports ?? []) {
    if (!imp.names.includes(name)) continue;
    const hit = index.resolveDotted(`${moduleOf(imp, init.path)}.${name}`, false);
    if (hit && hit.file !== index.byPath.get(init.path)) return hit.file;
  }
  return undefined;
}

/**
 * The module graph, read from tree-sitter's imports (python-defs.ts): the repository files a
 * Python file imports. `from .core import run` in `pkg/api.py` is `pkg/core.py` (or `pkg/core/run.py`
 * when `run` is a module), `import pkg.util` is `pkg/util.py`; modules outside the repository are
 * left out, and so is the file itself. A name taken from a package (`from pkg import Name`, or
 * `pkg.Name` after `import pkg`) that the package's `__init__.py` re-exports also reaches the
 * module it comes from.
 */
async function pythonImportedFiles(file: RepoFile, index: RepoIndex): Promise<number[]> {
  const outline = await file.doc.pythonOutline();
  const self = index.byPath.get(file.path);
  const out = new Set<number>();
  for (const imp of outline?.imports ?? []) {
    const base = moduleOf(imp, file.path);
    const names = imp.names.length > 0 ? imp.names : attributesUsed(file.doc.text, base);
    for (const name of [base, ...names.map((n) => `${base}.${n}`)]) {
      const hit = index.resolveDotted(name, false);
      if (!hit || hit.file === self) continue;
      out.add(hit.file);
      // `pkg.Name` where pkg is a package: also where its __init__ got Name from
      if (name === base || hit.rest === "" || hit.rest.includes(".")) continue;
      const target = index.files[hit.file];
      if (target.path.endsWith("__init__.py")) {
        const from = await reExported(target, hit.rest, index);
        if (from !== undefined && from !== self) out.add(from);
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** Files a file may import through one import (a Go package's folder can hold many). */
const MAX_PER_IMPORT = 50;

/**
 * The repository files a source file imports, read in `language` (languages.ts): Python's above,
 * the others' by their language's rules (lang/*.ts `resolve`: relative JS/TS specifiers, Go
 * packages within a go.mod module, Rust `mod` and `crate::` paths, C includes by path, Java
 * classes and PHP namespaces by folder, Ruby `require`). The file itself is left out.
 */
export async function importedFiles(
  file: RepoFile,
  index: RepoIndex,
  language: SourceLanguage = "python",
): Promise<number[]> {
  if (language === "python") return pythonImportedFiles(file, index);
  const spec = specOf(language);
  const outline = await file.doc.codeOutline(language);
  const self = index.byPath.get(file.path);
  const out = new Set<number>();
  for (const imp of outline?.imports ?? [])
    for (const hit of spec.resolve(imp, file.path, index).slice(0, MAX_PER_IMPORT))
      if (hit !== self) out.add(hit);
  return [...out].sort((a, b) => a - b);
}
