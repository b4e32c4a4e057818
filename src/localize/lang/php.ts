import type { LanguageSpec } from "./spec.js";
import { dirOf, firstFile, joinPath, namesMatching, normalizePath, uniqueTail } from "./spec.js";

const DEFS = `
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name) @definition.class
(const_element (name) @name) @definition.variable
`;

const IMPORTS = `
(namespace_use_declaration) @import.module
(include_expression) @import.path
(include_once_expression) @import.path
(require_expression) @import.path
(require_once_expression) @import.path
`;

const HINTS = [
  /\b(?:function|class|interface|trait|enum)\s+&?([A-Za-z_]\w*)/g,
  /\bconst\s+([A-Za-z_]\w*)\s*=/g,
];

/** `use A\B\{C, D as E};` → `A\B\C`, `A\B\D`; `use function A\f;` → `A\f`. */
function useSpecs(text: string): string[] {
  const body = text
    .replace(/^use\s+(?:function\s+|const\s+)?/, "")
    .replace(/\s*;\s*$/, "")
    .trim();
  const group = /^(.*?)\\?\{([\s\S]*)\}$/.exec(body);
  const clauses = group
    ? group[2].split(",").map((c) => `${group[1]}\\${c.trim()}`)
    : body.split(",").map((c) => c.trim());
  return clauses
    .map((c) =>
      c
        .replace(/\s+as\s+\w+$/i, "")
        .replace(/^(?:function|const)\s+/, "")
        .replace(/^\\/, "")
        .trim(),
    )
    .filter((c) => c !== "");
}

/** `require_once __DIR__ . '/x.php'` → `./x.php` (a path from the file's folder); `include 'lib/x.php'` → `lib/x.php`. */
function includeSpecs(text: string): string[] {
  const strings = [...text.matchAll(/(["'])([^"'\n]*)\1/g)].map((m) => m[2]);
  const last = strings[strings.length - 1];
  if (!last || !/\.(php|inc)$/i.test(last)) return [];
  return [
    /__DIR__|dirname\s*\(\s*__FILE__\s*\)/.test(text) ? `.${last.startsWith("/") ? "" : "/"}${last}` : last,
  ];
}

export const PHP: LanguageSpec = {
  id: "php",
  grammar: { pkg: "tree-sitter-php", wasm: "tree-sitter-php.wasm" },
  defs: DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  importSpecs: (text, kind) => (kind === "module" ? useSpecs(text) : includeSpecs(text)),
  testedNames(name) {
    const m = /^(\w+?)Test\.php$/.exec(name);
    return m ? [`${m[1]}.php`] : [];
  },
  /**
   * A class `A\B\C` is the file `.../B/C.php` (PSR-4: the namespace's folders under some root;
   * the longest tail of `A/B/C.php` one file has, at least `B/C.php`). An included path is read
   * from the including file's folder (`__DIR__ . '/x.php'`, or a relative path as PHP's include
   * path tries it), else from the top.
   */
  resolve(imp, importer, repo) {
    if (imp.kind === "module") return uniqueTail(repo, `${imp.spec.replace(/\\/g, "/")}.php`, 2);
    if (imp.spec.startsWith("./") || imp.spec.startsWith("../"))
      return firstFile(repo, [joinPath(dirOf(importer), imp.spec)]);
    return firstFile(repo, [joinPath(dirOf(importer), imp.spec), normalizePath(imp.spec)]);
  },
};
