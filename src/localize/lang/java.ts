import type { LanguageSpec } from "./spec.js";
import { namesMatching, uniqueTail } from "./spec.js";

const DEFS = `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
`;

const IMPORTS = `(import_declaration) @import.module`;

const MODIFIERS =
  "(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|strictfp|transient|volatile|sealed|non-sealed)\\s+)";
const NOT_A_TYPE = "(?!(?:return|new|throw|else|case|yield|assert|package|import)\\b)";
const HINTS = [
  /\b(?:class|interface|enum|record|@interface)\s+([A-Za-z_$][\w$]*)/g,
  // a method, constructor or field: modifiers and a type (or modifiers alone) before the name
  new RegExp(
    `^[ \\t]*(?:@\\w+(?:\\([^)\\n]*\\))?\\s+)*(?:${MODIFIERS}+(?:<[^>\\n]*>\\s*)?|${NOT_A_TYPE}(?:<[^>\\n]*>\\s*)?[\\w$.]+(?:<[^;{}()\\n]*>)?(?:\\[\\])*\\s+)${MODIFIERS}*(?:[\\w$.]+(?:<[^;{}()\\n]*>)?(?:\\[\\])*\\s+)?([A-Za-z_$][\\w$]*)\\s*(?:\\(|=|;)`,
    "gm",
  ),
];

export const JAVA: LanguageSpec = {
  id: "java",
  grammar: { pkg: "tree-sitter-java", wasm: "tree-sitter-java.wasm" },
  defs: DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  /** `import static a.b.C.m;` → `a.b.C.m`, `import a.b.*;` → `a.b.*`. */
  importSpecs: (text) => [
    text
      .replace(/^import\s+(?:static\s+)?/, "")
      .replace(/\s*;\s*$/, "")
      .replace(/\s+/g, ""),
  ],
  testedNames(name) {
    const m = /^(?:Test(?=[A-Z]))?(\w+?)(?:Tests?|IT)?\.java$/.exec(name);
    return m && `${m[1]}.java` !== name ? [`${m[1]}.java`] : [];
  },
  /**
   * `a.b.C` is the file `a/b/C.java` under any source root (the longest tail of that path one
   * file has, at least `b/C.java`); a static import's member is dropped. A package's `*` is
   * not followed (which of its classes the file uses is not in the import).
   */
  resolve(imp, _importer, repo) {
    const parts = imp.spec.split(".");
    if (parts[parts.length - 1] === "*") return [];
    for (let n = parts.length; n >= 2; n--) {
      const hit = uniqueTail(repo, `${parts.slice(0, n).join("/")}.java`, 2);
      if (hit.length > 0) return hit;
    }
    return [];
  },
};
