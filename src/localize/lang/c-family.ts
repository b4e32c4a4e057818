import type { LanguageSpec } from "./spec.js";
import { dirOf, firstFile, joinPath, namesMatching, uniqueTail } from "./spec.js";

/** A function's name inside its declarator, through pointer and reference declarators. */
const fnName = (name: string) => `[
  (function_declarator declarator: ${name})
  (pointer_declarator declarator: (function_declarator declarator: ${name}))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: ${name})))
]`;

const C_DEFS = `
(function_definition declarator: ${fnName("(identifier) @name")}) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition declarator: (type_identifier) @name) @definition.class
(preproc_def name: (identifier) @name) @definition.variable
(preproc_function_def name: (identifier) @name) @definition.function
(translation_unit (declaration declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)]) @definition.variable)
`;

const CPP_FN = `[
  (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @receiver name: (identifier) @name)])
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @receiver name: (identifier) @name)]))
  (reference_declarator (function_declarator declarator: [(identifier) @name (field_identifier) @name (qualified_identifier scope: (_) @receiver name: (identifier) @name)]))
]`;

const CPP_DEFS = `
(function_definition declarator: ${CPP_FN}) @definition.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition declarator: (type_identifier) @name) @definition.class
(alias_declaration name: (type_identifier) @name) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.class
(preproc_def name: (identifier) @name) @definition.variable
(preproc_function_def name: (identifier) @name) @definition.function
(translation_unit (declaration declarator: [(identifier) @name (init_declarator declarator: (identifier) @name)]) @definition.variable)
`;

const IMPORTS = `
(preproc_include path: (string_literal (string_content) @import.path))
(preproc_include path: (system_lib_string) @import.module)
`;

const NOT_A_TYPE = "(?!(?:return|else|case|goto|sizeof|typedef|throw|new|delete|if|while|for|switch|do)\\b)";
const HINTS = [
  // a function definition: a type, then the name and its `(` (an indented one is C++'s, in a class)
  new RegExp(`^[ \\t]*${NOT_A_TYPE}(?:[\\w:<>,~]+[ \\t*&]+)+[*&]*(~?[A-Za-z_]\\w*)[ \\t]*\\(`, "gm"),
  // the name at the start of its line after a return type on the line above (`static char *\nname(...)`)
  /^([A-Za-z_]\w*)[ \t]*\(/gm,
  /::[ \t]*(~?[A-Za-z_]\w*)[ \t]*\(/g,
  /\b(?:struct|union|enum(?:[ \t]+class)?|class|namespace)[ \t]+(?:[A-Z_][A-Z0-9_]*[ \t]+)?([A-Za-z_]\w*)[ \t]*(?:final[ \t]*)?(?::[^;{\n]*)?(?:\{|$)/gm,
  /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)/gm,
  /\}[ \t]*([A-Za-z_]\w*)[ \t]*;/g,
  /^typedef\b[^;(]*?\b([A-Za-z_]\w*)[ \t]*;/gm,
  /^using[ \t]+([A-Za-z_]\w*)[ \t]*=/gm,
  /^(?:static[ \t]+|extern[ \t]+|const[ \t]+)*[A-Za-z_]\w*[ \t*]+([A-Za-z_]\w*)[ \t]*(?:=|;|\[)/gm,
];

/**
 * `#include "x.h"` is `x.h` from the including file's folder, else the one file whose path ends
 * with `x.h` (an include folder: `include/x.h`); `#include <a/b.h>` only that way, and a bare
 * `<b.h>` only when one file is named so (`<stdio.h>` is the system's).
 */
function resolveInclude(
  imp: { kind: string; spec: string },
  importer: string,
  repo: Parameters<LanguageSpec["resolve"]>[2],
): number[] {
  if (imp.kind === "path") {
    const here = firstFile(repo, [joinPath(dirOf(importer), imp.spec)]);
    return here.length > 0 ? here : uniqueTail(repo, imp.spec, imp.spec.split("/").length);
  }
  const spec = imp.spec.replace(/^<|>$/g, "");
  return uniqueTail(repo, spec, spec.split("/").length);
}

const testedNames = (name: string) => {
  const m = /^(?:test_)?(.+?)(?:[_-](?:test|unittest|tests))?(\.(?:c|cc|cpp|cxx))$/.exec(name);
  return m && `${m[1]}${m[2]}` !== name ? [`${m[1]}${m[2]}`, `${m[1]}.h`, `${m[1]}.hpp`] : [];
};

export const C: LanguageSpec = {
  id: "c",
  grammar: { pkg: "tree-sitter-c", wasm: "tree-sitter-c.wasm" },
  defs: C_DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  testedNames,
  resolve: resolveInclude,
};

export const CPP: LanguageSpec = {
  id: "cpp",
  grammar: { pkg: "tree-sitter-cpp", wasm: "tree-sitter-cpp.wasm" },
  defs: CPP_DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  testedNames,
  resolve: resolveInclude,
};
