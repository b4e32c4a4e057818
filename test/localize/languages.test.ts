import { describe, expect, it } from "vitest";
import { importedFiles } from "../../src/localize/imports.js";
import { useSpecs } from "../../src/localize/lang/rust.js";
import { fileLanguages, languageOf } from "../../src/localize/languages.js";
import { localize } from "../../src/localize/localize.js";
import { fileKind, type RepoSnapshot } from "../../src/localize/repo-files.js";
import { RepoIndex } from "../../src/localize/repo-index.js";
import {
  C_REPO,
  CPP_REPO,
  GO_REPO,
  JAVA_REPO,
  JS_REPO,
  type LanguageRepo,
  PHP_REPO,
  RUBY_REPO,
  RUST_REPO,
  TS_REPO,
} from "./language-repos.js";
import { paths, snapshotOf } from "./support.js";

/** `qualname kind line` of each definition (`local` marked), in the file's order. */
async function defsOf(snapshot: RepoSnapshot, path: string): Promise<string[]> {
  const i = snapshot.files.findIndex((f) => f.path === path);
  const language = fileLanguages(snapshot.files)[i]!;
  const defs = await snapshot.files[i].doc.defsIn(language);
  return defs.map((d) => `${d.qualname} ${d.kind} ${d.line}${d.local ? " local" : ""}`);
}

/** The repository files each file imports, for the files that import any. */
async function importsOf(snapshot: RepoSnapshot): Promise<Record<string, string[]>> {
  const index = RepoIndex.of(snapshot);
  const languages = fileLanguages(snapshot.files);
  const out: Record<string, string[]> = {};
  for (const [i, f] of snapshot.files.entries()) {
    if (languages[i] === undefined) continue;
    const hits = (await importedFiles(f, index, languages[i])).map((j) => snapshot.files[j].path);
    if (hits.length > 0) out[f.path] = hits;
  }
  return out;
}

interface Case {
  repo: LanguageRepo;
  /** The file whose definitions are checked, and what they are. */
  defsFile: string;
  defs: string[];
  imports: Record<string, string[]>;
  /** The file the issue is about, and a reason the ranking must give for it. */
  top: string;
  why: string;
}

const CASES: Record<string, Case> = {
  Go: {
    repo: GO_REPO,
    defsFile: "store/store.go",
    defs: [
      "ErrMissing variable 10",
      "DefaultLimit variable 13",
      "maxLimit variable 14",
      "Store class 17",
      "New function 21",
      "Store.Lookup function 25",
    ],
    // a package of the module is its folder's files but the tests; "errors" and "fmt" are not the repository's
    imports: { "cmd/shop/main.go": ["store/store.go"], "store/store.go": ["model/item.go"] },
    top: "store/store.go",
    why: "defines `Store`, `Store.Lookup`, named in the title",
  },
  Java: {
    repo: JAVA_REPO,
    defsFile: "src/main/java/com/acme/cart/Cart.java",
    defs: [
      "Cart class 7",
      "Cart.lines variable 8",
      "Cart.Cart function 10",
      "Cart.addLine function 13",
      "Cart.total function 17",
      "Cart.State class 25",
    ],
    imports: { "src/main/java/com/acme/cart/Cart.java": ["src/main/java/com/acme/cart/model/Line.java"] },
    top: "src/main/java/com/acme/cart/Cart.java",
    why: "defines `Cart`, `Cart.total`, in backticks in the issue",
  },
  JavaScript: {
    repo: JS_REPO,
    defsFile: "src/parser.js",
    defs: [
      "assert variable 2",
      "parseExpression function 4",
      "Parser class 8",
      "Parser.constructor function 9",
      "Parser.parseSum function 13",
      "Parser.parseTerm function 18",
      "Parser.parseTerm.read function 19 local",
      "VERSION variable 24",
    ],
    // `./lexer.js`, `require("./assert")` and a re-export; the test's `../src/parser.js`
    imports: {
      "src/index.js": ["src/parser.js"],
      "src/parser.js": ["src/assert.js", "src/lexer.js"],
      "test/parser.test.js": ["src/parser.js"],
    },
    top: "src/parser.js",
    why: "defines `Parser.parseTerm`, named in the title",
  },
  TypeScript: {
    repo: TS_REPO,
    defsFile: "src/cache/lru.ts",
    defs: [
      "CacheEntry class 3",
      "Key class 8",
      "LruCache class 10",
      "LruCache.constructor function 13",
      "LruCache.get function 15",
      "LruCache.evictOldest function 19",
      "sizeOf function 25",
    ],
    // extensionless specifiers, a folder's parent, and a TSX file's `../cache/lru.js` that is lru.ts
    imports: {
      "src/cache/lru.test.ts": ["src/cache/lru.ts"],
      "src/cache/lru.ts": ["src/options.ts"],
      "src/index.ts": ["src/cache/lru.ts"],
      "src/ui/view.tsx": ["src/cache/lru.ts"],
    },
    top: "src/cache/lru.ts",
    why: "defines `LruCache.evictOldest`, in backticks in the issue",
  },
  PHP: {
    repo: PHP_REPO,
    defsFile: "src/Models/User.php",
    defs: [
      "User class 5",
      "User.fullName function 10",
      "HasName class 16",
      "HasName.fullName function 18",
      "Named class 21",
    ],
    // `use` of a class and a group (PSR-4 folders under src/), and `require_once __DIR__ . '/helpers.php'`
    imports: {
      "src/Http/Controller.php": ["src/Http/helpers.php", "src/Models/User.php", "src/Support/Str.php"],
      "tests/UserTest.php": ["src/Models/User.php"],
    },
    top: "src/Models/User.php",
    why: "defines `User`, `User.fullName`, named in the title",
  },
  Ruby: {
    repo: RUBY_REPO,
    defsFile: "lib/inventory/shelf.rb",
    defs: [
      "Inventory class 3",
      "Inventory.Shelf class 4",
      "Inventory.Shelf.CAPACITY variable 5",
      "Inventory.Shelf.initialize function 7",
      "Inventory.Shelf.restock function 11",
      "Inventory.Shelf.empty function 16",
      "Inventory.Shelf.build function 20",
    ],
    // `require "inventory/shelf"` from lib/, `require_relative "item"`; `require "json"` is not the repository's
    imports: {
      "lib/inventory.rb": ["lib/inventory/shelf.rb"],
      "lib/inventory/shelf.rb": ["lib/inventory/item.rb"],
      "spec/shelf_spec.rb": ["lib/inventory/shelf.rb"],
    },
    top: "lib/inventory/shelf.rb",
    why: "defines `Inventory.Shelf.restock`, in backticks in the issue",
  },
  Rust: {
    repo: RUST_REPO,
    defsFile: "src/lexer.rs",
    defs: [
      "Lexer class 4",
      "Token class 9",
      "Source class 14",
      "Source.peek function 15",
      "Lexer.new function 19",
      "Lexer.next_token function 23",
      "MAX_TOKENS variable 32",
    ],
    // `mod lexer;` and `mod util;` from lib.rs, `use crate::util::{...}`; `use demo::Lexer` and std are crates
    imports: { "src/lexer.rs": ["src/util.rs"], "src/lib.rs": ["src/lexer.rs", "src/util.rs"] },
    top: "src/lexer.rs",
    why: "defines `Lexer`, `Lexer.next_token`, in backticks in the issue",
  },
  C: {
    repo: C_REPO,
    defsFile: "src/strbuf.c",
    defs: ["grown variable 4", "strbuf_grow function 6", "strbuf_detach function 14"],
    // `"strbuf.h"` beside the file, `<util/log.h>` under include/; `<stdio.h>` is the system's
    imports: {
      "src/log.c": ["include/util/log.h"],
      "src/main.c": ["include/util/log.h", "src/strbuf.h"],
      "src/strbuf.c": ["src/strbuf.h"],
    },
    top: "src/strbuf.c",
    why: "defines `strbuf_grow`, named in the title",
  },
  "C++": {
    repo: CPP_REPO,
    defsFile: "include/fmt/buffer.h",
    defs: ["fmt class 4", "fmt.Buffer class 5", "fmt.Buffer.grow function 7", "fmt.Buffer.size function 8"],
    imports: { "src/buffer.cc": ["include/fmt/buffer.h"], "src/format.cc": ["include/fmt/buffer.h"] },
    top: "src/buffer.cc",
    why: "defines `fmt.Buffer.grow`, named in the title",
  },
};

describe("definitions, imports and the ranking beyond Python", () => {
  for (const [name, c] of Object.entries(CASES))
    it(`${name}: the definitions and imports tree-sitter finds, and the file the issue's symbol is defined in first`, async () => {
      const { snapshot } = await snapshotOf(c.repo.files);
      expect(await defsOf(snapshot, c.defsFile)).toEqual(c.defs);
      expect(await importsOf(snapshot)).toEqual(c.imports);
      const r = await localize(c.repo.issue, snapshot, { topK: 5, topSymbols: 5 });
      expect(r.files[0].path).toBe(c.top);
      expect(r.files[0].why).toContain(c.why);
    });

  it("C++: an out-of-line method is qualified by its class and namespace", async () => {
    const { snapshot } = await snapshotOf(CPP_REPO.files);
    expect(await defsOf(snapshot, "src/buffer.cc")).toEqual([
      "fmt class 4",
      "fmt.Buffer.grow function 5",
      "fmt.clamp function 13",
    ]);
  });

  it("the ranking's symbols are the issue's definitions in the top files, with their lines", async () => {
    const { snapshot } = await snapshotOf(GO_REPO.files);
    const r = await localize(GO_REPO.issue, snapshot, { topK: 3, topSymbols: 2 });
    expect(r.symbols).toEqual([
      { path: "store/store.go", name: "Store.Lookup", line: 25, score: 3 },
      { path: "store/store.go", name: "Store", line: 17, score: 2 },
    ]);
  });

  it("a test file of each language is a test, weighed as one; vendored and minified files are other", () => {
    const kinds = (ps: string[]) => ps.map((p) => `${p}: ${fileKind(p)}`);
    expect(
      kinds([
        "store/store_test.go",
        "src/parser.test.ts",
        "src/parser.spec.js",
        "src/__tests__/parser.js",
        "src/test/java/com/acme/CartTest.java",
        "lib/TestCart.java",
        "spec/shelf_spec.rb",
        "tests/UserTest.php",
        "src/strbuf_unittest.cc",
        "vendor/github.com/x/y.go",
        "node_modules/left-pad/index.js",
        "static/app.min.js",
        "store/store.go",
        "src/spec.py",
      ]),
    ).toEqual([
      "store/store_test.go: test",
      "src/parser.test.ts: test",
      "src/parser.spec.js: test",
      "src/__tests__/parser.js: test",
      "src/test/java/com/acme/CartTest.java: test",
      "lib/TestCart.java: test",
      "spec/shelf_spec.rb: test",
      "tests/UserTest.php: test",
      "src/strbuf_unittest.cc: test",
      "vendor/github.com/x/y.go: other",
      "node_modules/left-pad/index.js: other",
      "static/app.min.js: other",
      "store/store.go: source",
      "src/spec.py: source",
    ]);
  });

  it("a test file the issue names points at the file it tests by its language's naming", async () => {
    const { snapshot } = await snapshotOf(GO_REPO.files);
    const issue = "TestItem fails\n\n`model/item_test.go` fails since the price became an int.";
    const r = await localize(issue, snapshot, { topK: 5, topSymbols: 0 });
    const item = r.files.find((f) => f.path === "model/item.go");
    expect(item?.why).toContain("tested by model/item_test.go, which the issue points at");
  });

  it("Rust: every form of a use path, and braces that do not pair give nothing (they once recursed without end)", () => {
    expect(useSpecs("{crate::loom::sync::Mutex, std::collections::BTreeMap}")).toEqual([
      "crate::loom::sync::Mutex",
      "std::collections::BTreeMap",
    ]);
    expect(useSpecs("crate::a::{self, b::{c, d as e}, f::*}")).toEqual([
      "crate::a",
      "crate::a::b::c",
      "crate::a::b::d",
      "crate::a::f",
    ]);
    expect(useSpecs("::std::fmt")).toEqual(["std::fmt"]);
    expect(useSpecs("a::{b")).toEqual([]);
    expect(useSpecs("a::}")).toEqual([]);
  });

  it("reads a language from the file name; a C header as C++ when its text is C++", () => {
    expect(
      [
        ["a.go", ""],
        ["a.mjs", ""],
        ["a.tsx", ""],
        ["a.rb", ""],
        ["a.rs", ""],
        ["a.php", ""],
        ["a.hpp", ""],
        ["a.h", "struct s { int x; };\n"],
        ["a.h", "namespace fmt {\n}\n"],
        ["a.min.js", ""],
        ["a.py", ""],
        ["Makefile", ""],
        ["README.md", ""],
      ].map(([p, t]) => languageOf(p, t) ?? "none"),
    ).toEqual([
      "go",
      "javascript",
      "tsx",
      "ruby",
      "rust",
      "php",
      "cpp",
      "c",
      "cpp",
      "none",
      "python",
      "none",
      "none",
    ]);
  });

  it("in a repository that is mostly Python, only Python's definitions are read (its C code stays text)", async () => {
    const { snapshot } = await snapshotOf({
      "pkg/__init__.py": "",
      "pkg/api.py": "def convert(x):\n    return x\n",
      "pkg/util.py": "def helper():\n    pass\n",
      "pkg/_speedups.c": "int convert_fast(int x)\n{\n  return x;\n}\n",
    });
    expect(fileLanguages(snapshot.files)).toEqual(["python", undefined, "python", "python"]);
    const r = await localize("convert_fast returns the wrong value", snapshot, { topK: 5, topSymbols: 5 });
    expect(r.files.find((f) => f.path === "pkg/_speedups.c")?.why.some((w) => w.startsWith("defines"))).toBe(
      false,
    );
  });

  it("BM25 ranks any text file: a Go repository's YAML and Markdown are found by their words", async () => {
    const { snapshot } = await snapshotOf({
      ...GO_REPO.files,
      "deploy/chart.yaml": "replicas: 3\nimagePullPolicy: Always\nreadinessProbe: tcp\n",
    });
    const r = await localize("readinessProbe imagePullPolicy is ignored", snapshot, {
      topK: 3,
      topSymbols: 0,
    });
    expect(paths(r.files)[0]).toBe("deploy/chart.yaml");
  });
});
