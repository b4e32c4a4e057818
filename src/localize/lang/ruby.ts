import type { LanguageSpec } from "./spec.js";
import { dirOf, firstFile, joinPath, namesMatching, uniqueTail } from "./spec.js";

const DEFS = `
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
(class name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.class
(module name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.class
(assignment left: (constant) @name) @definition.variable
`;

const IMPORTS = `
(call method: (identifier) @_m arguments: (argument_list . (string (string_content) @import.path)) (#eq? @_m "require_relative"))
(call method: (identifier) @_m arguments: (argument_list . (string (string_content) @import.module)) (#any-of? @_m "require" "load"))
`;

const HINTS = [
  /^[ \t]*def[ \t]+(?:self\.)?([A-Za-z_]\w*)/gm,
  /^[ \t]*(?:class|module)[ \t]+(?:[A-Z]\w*::)*([A-Z]\w*)/gm,
  /^[ \t]*([A-Z]\w*)[ \t]*=[^=~]/gm,
];

export const RUBY: LanguageSpec = {
  id: "ruby",
  grammar: { pkg: "tree-sitter-ruby", wasm: "tree-sitter-ruby.wasm" },
  defs: DEFS,
  imports: IMPORTS,
  definedNames: (text) => namesMatching(text, HINTS),
  /** `valid?`, `save!` and `name=` are found as `valid`, `save`, `name` (the identifiers have no suffix). */
  nameOf: (text) => text.replace(/[?!=]$/, ""),
  testedNames(name) {
    const m = /^(?:test_)?(\w+?)(?:_spec|_test)?\.rb$/.exec(name);
    return m && `${m[1]}.rb` !== name ? [`${m[1]}.rb`] : [];
  },
  /**
   * `require_relative "x"` is `x.rb` from the file's folder; `require "a/b"` is `a/b.rb` in a
   * load path folder (`lib/a/b.rb`, else the one file whose path ends with `a/b.rb`); a bare
   * `require "json"` only as `lib/json.rb` (it is mostly a gem's or the standard library's).
   */
  resolve(imp, importer, repo) {
    const rel = imp.spec.endsWith(".rb") ? imp.spec : `${imp.spec}.rb`;
    if (imp.kind === "path") return firstFile(repo, [joinPath(dirOf(importer), rel)]);
    const inLib = firstFile(repo, [joinPath("lib", rel)]);
    if (inLib.length > 0 || !rel.includes("/")) return inLib;
    return uniqueTail(repo, rel, rel.split("/").length);
  },
};
