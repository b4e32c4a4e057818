import type { LanguageSpec, RepoPaths } from "./spec.js";
import { dirOf, firstFile, joinPath, namesMatching } from "./spec.js";

const DEFS = `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(macro_definition name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(trait_item name: (type_identifier) @name) @definition.class
(type_item name: (type_identifier) @name) @definition.class
(mod_item name: (identifier) @name body: (declaration_list)) @definition.class
(const_item name: (identifier) @name) @definition.variable
(static_item name: (identifier) @name) @definition.variable
(impl_item type: [(type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @scope
`;

const IMPORTS = `
(mod_item name: (identifier) @import.mod !body)
(use_declaration argument: (_) @import.module)
`;

const HINTS = [
  /\b(?:fn|struct|enum|union|trait|type|mod|const|static)[ \t]+([A-Za-z_]\w*)/g,
  /\bmacro_rules![ \t]*([A-Za-z_]\w*)/g,
];

/**
 * The paths of a `use`: `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`; `{a::b, c}` → `a::b`,
 * `c`; `a::{self, b}` → `a`, `a::b`; `a::b as c` → `a::b`; `a::*` → `a`. Braces that do not pair
 * give nothing.
 */
export function useSpecs(text: string): string[] {
  const t = text
    .replace(/\s+as\s+\w+/g, "")
    .replace(/\s+/g, "")
    .replace(/^::/, "");
  if (!t.includes("{")) return t.includes("}") || t === "" ? [] : [t.replace(/::\*$/, "")];
  const group = /^(?:(.*?)::)?\{(.*)\}$/.exec(t);
  if (!group) return [];
  const prefix = group[1] ?? "";
  return splitTop(group[2]).flatMap((item) => {
    const path = item === "self" ? prefix : prefix ? `${prefix}::${item}` : item;
    return path === "" ? [] : useSpecs(path);
  });
}

/** Splits at the commas outside braces. */
function splitTop(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === "{") depth++;
    else if (list[i] === "}") depth--;
    else if (list[i] === "," && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out.filter((s) => s !== "");
}

const ROOT_FILES = new Set(["lib.rs", "main.rs", "mod.rs"]);

/** The folder holding a module's children: `src/a/mod.rs` and `src/lib.rs` → their folder, `src/a/b.rs` → `src/a/b`. */
function childDir(file: string): string {
  const name = file.slice(file.lastIndexOf("/") + 1);
  return ROOT_FILES.has(name) ? dirOf(file) : file.replace(/\.rs$/, "");
}

/** The crate's root folder: the nearest folder above the file that holds lib.rs or main.rs. */
function crateDir(file: string, repo: RepoPaths): string | undefined {
  for (let d = dirOf(file); ; d = dirOf(d)) {
    if (
      repo.file(joinPath(d, "lib.rs") ?? "") !== undefined ||
      repo.file(joinPath(d, "main.rs") ?? "") !== undefined
    )
      return d;
    if (d === "") return undefined;
  }
}

/** The module file a path of names under folder `dir` reaches (the longest path that is a file). */
function moduleFile(dir: string, names: string[], repo: RepoPaths): number[] {
  for (let n = names.length; n >= 1; n--) {
    const rel = names.slice(0, n).join("/");
    const hit = firstFile(repo, [joinPath(dir, `${rel}.rs`), joinPath(dir, `${rel}/mod.rs`)]);
    if (hit.length > 0) return hit;
  }
  return [];
}

export const RUST: LanguageSpec = {
  id: "rust",
  grammar: { pkg: "tree-sitter-rust", wasm: "tree-sitter-rust.wasm" },
  defs: DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  importSpecs: (text, kind) => (kind === "module" ? useSpecs(text) : [text.trim()]),
  testedNames: () => [],
  /**
   * `mod x;` is `x.rs` or `x/mod.rs` in the folder of the module's children (the file's own
   * folder for lib.rs, main.rs and mod.rs, else the folder named after the file). A `use` path
   * from `crate::`, `self::` or `super::` is the longest module file it names below the crate's
   * root folder (the one with lib.rs or main.rs), the module's own folder, or its parent's; other
   * paths are crates.
   */
  resolve(imp, importer, repo) {
    if (imp.kind === "mod") return moduleFile(childDir(importer), [imp.spec], repo);
    const names = imp.spec.split("::");
    let dir: string | undefined;
    if (names[0] === "crate") dir = crateDir(importer, repo);
    else if (names[0] === "self") dir = childDir(importer);
    else if (names[0] === "super") {
      dir = childDir(importer);
      while (names[0] === "super") {
        dir = dirOf(dir);
        names.shift();
      }
      names.unshift("super");
    } else return [];
    if (dir === undefined) return [];
    return moduleFile(dir, names.slice(1), repo);
  },
};
