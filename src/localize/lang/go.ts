import type { LanguageSpec, RepoPaths } from "./spec.js";
import { dirOf, namesMatching } from "./spec.js";

const RECEIVER = `[(type_identifier) @receiver
  (pointer_type (type_identifier) @receiver)
  (generic_type type: (type_identifier) @receiver)
  (pointer_type (generic_type type: (type_identifier) @receiver))]`;

const DEFS = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: ${RECEIVER})) name: (field_identifier) @name) @definition.function
(type_spec name: (type_identifier) @name) @definition.class
(type_alias name: (type_identifier) @name) @definition.class
(const_spec name: (identifier) @name) @definition.variable
(var_spec name: (identifier) @name) @definition.variable
`;

const IMPORTS = `(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))`;

const HINTS = [
  /^func[ \t]*(?:\([^)\n]*\)[ \t]*)?([A-Za-z_]\w*)/gm,
  /^(?:type|const|var)[ \t]+([A-Za-z_]\w*)/gm,
];
/** The names of a `const (...)`, `var (...)` or `type (...)` block, one a line. */
const BLOCK = /^(?:type|const|var)[ \t]*\(\n([\s\S]*?)^\)/gm;
const BLOCK_NAME = /^[ \t]+([A-Za-z_]\w*)/gm;

const modulesMemo = new WeakMap<RepoPaths, Array<{ module: string; dir: string }>>();

/** The module path of each go.mod of the repository and its folder, the longest path first. */
function modulesOf(repo: RepoPaths): Array<{ module: string; dir: string }> {
  let mods = modulesMemo.get(repo);
  if (!mods) {
    mods = [];
    for (const f of repo.endingWith("go.mod")) {
      const path = repo.pathOf(f);
      const m = /^module[ \t]+"?([^\s"]+)"?/m.exec(repo.text(path) ?? "");
      if (m) mods.push({ module: m[1], dir: dirOf(path) });
    }
    mods.sort((a, b) => b.module.length - a.module.length);
    modulesMemo.set(repo, mods);
  }
  return mods;
}

export const GO: LanguageSpec = {
  id: "go",
  grammar: { pkg: "tree-sitter-go", wasm: "tree-sitter-go.wasm" },
  defs: DEFS,
  imports: IMPORTS,
  definedNames(text) {
    const names = namesMatching(text, HINTS);
    for (const b of text.matchAll(BLOCK)) for (const n of b[1].matchAll(BLOCK_NAME)) names.add(n[1]);
    return names;
  },
  testedNames: (name) => (name.endsWith("_test.go") ? [name.replace(/_test\.go$/, ".go")] : []),
  /** An import path inside one of the repository's modules (go.mod) is that package's folder: its non-test files. */
  resolve(imp, _importer, repo) {
    for (const { module, dir } of modulesOf(repo)) {
      if (imp.spec !== module && !imp.spec.startsWith(`${module}/`)) continue;
      const rest = imp.spec.slice(module.length + 1);
      const pkg = [dir, rest].filter((p) => p !== "").join("/");
      return repo.inDir(pkg).filter((f) => {
        const p = repo.pathOf(f);
        return p.endsWith(".go") && !p.endsWith("_test.go");
      });
    }
    return [];
  },
};
