import type { LanguageSpec } from "./spec.js";
import { dirOf, firstFile, joinPath, namesMatching } from "./spec.js";

/** Definitions common to JavaScript and TypeScript (the class name is `identifier` in one, `type_identifier` in the other). */
const COMMON_DEFS = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name) @definition.variable
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)] (#not-eq? @name "exports")) @definition.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
`;

const JS_DEFS = `${COMMON_DEFS}
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
`;

const TS_DEFS = `${COMMON_DEFS}
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.class
(type_alias_declaration name: (type_identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(internal_module name: (identifier) @name) @definition.class
(function_signature name: (identifier) @name) @definition.function
(abstract_method_signature name: (property_identifier) @name) @definition.function
(method_signature name: (property_identifier) @name) @definition.function
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
`;

const COMMON_IMPORTS = `
(import_statement source: (string (string_fragment) @import.module))
(export_statement source: (string (string_fragment) @import.module))
(call_expression function: (identifier) @_f arguments: (arguments . (string (string_fragment) @import.module)) (#eq? @_f "require"))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))
`;

const TS_IMPORTS = `${COMMON_IMPORTS}
(import_require_clause source: (string (string_fragment) @import.module))
`;

const ID = "[A-Za-z_$][\\w$]*";
const HINTS = [
  new RegExp(`\\b(?:function\\*?|class|interface|type|enum|namespace|module)\\s+(${ID})`, "g"),
  new RegExp(`\\b(?:const|let|var)\\s+(${ID})\\s*(?::[^=\\n]*)?=`, "g"),
  // a method: `name(args) {` or `name(args` ending its line (a call goes on with `;`, `)` or `.`)
  new RegExp(
    `^[ \\t]*(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract|declare|export|default)\\s+)*\\*?(${ID})\\s*(?:<[^>\\n]*>)?\\s*\\((?:[^)\\n]*\\)\\s*(?::[^{;\\n]*)?\\{|[^)\\n]*$)`,
    "gm",
  ),
  new RegExp(
    `(?:^|[.\\s,{])(${ID})\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\([^)\\n]*\\)\\s*(?::[^=\\n]*)?=>|${ID}\\s*=>)`,
    "gm",
  ),
];

const SOURCE_EXTS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts"];

/**
 * A relative specifier (`./util`, `../lib/thing.js`) is a file of the repository: as written, with
 * a source extension added, or its folder's `index`; a `.js` written for a TypeScript source
 * (`./util.js` for `util.ts`) is that source. A package name is outside the repository.
 */
function resolveJs(spec: string, importer: string, repo: Parameters<LanguageSpec["resolve"]>[2]): number[] {
  if (!spec.startsWith("./") && !spec.startsWith("../") && spec !== "." && spec !== "..") return [];
  const base = joinPath(dirOf(importer), spec.split(/[?#]/)[0]);
  if (base === null) return [];
  const swapped = /\.(?:m|c)?jsx?$/.test(base) ? base.replace(/\.(m|c)?js(x?)$/, ".$1ts$2") : null;
  return firstFile(repo, [
    base,
    swapped,
    ...SOURCE_EXTS.map((e) => base + e),
    ...SOURCE_EXTS.map((e) => `${base}/index${e}`),
  ]);
}

const testedNames = (name: string) => {
  const m = /^(.+)\.(?:test|spec)(\.[cm]?[jt]sx?)$/.exec(name);
  return m ? [`${m[1]}${m[2]}`] : [];
};

const common = {
  definedNames: (text: string) => namesMatching(text, HINTS),
  testedNames,
  resolve: (imp: { spec: string }, importer: string, repo: Parameters<LanguageSpec["resolve"]>[2]) =>
    resolveJs(imp.spec, importer, repo),
};

export const JAVASCRIPT: LanguageSpec = {
  id: "javascript",
  grammar: { pkg: "tree-sitter-javascript", wasm: "tree-sitter-javascript.wasm" },
  defs: JS_DEFS,
  imports: COMMON_IMPORTS,
  ...common,
};

export const TYPESCRIPT: LanguageSpec = {
  id: "typescript",
  grammar: { pkg: "tree-sitter-typescript", wasm: "tree-sitter-typescript.wasm" },
  defs: TS_DEFS,
  imports: TS_IMPORTS,
  ...common,
};

export const TSX: LanguageSpec = {
  id: "tsx",
  grammar: { pkg: "tree-sitter-typescript", wasm: "tree-sitter-tsx.wasm" },
  defs: TS_DEFS,
  imports: TS_IMPORTS,
  ...common,
};
