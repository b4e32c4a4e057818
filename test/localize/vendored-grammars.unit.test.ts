/**
 * The grammars the localizer loads are .wasm files kept in assets/grammars/ (not npm packages):
 * each one the code names is there, recorded in grammars.json with the package it came from and
 * its sha256, and loads in the web-tree-sitter patchloop depends on (its ABI).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LANGUAGE_VERSION, MIN_COMPATIBLE_VERSION } from "web-tree-sitter";
import { C, CPP } from "../../src/localize/lang/c-family.js";
import { GO } from "../../src/localize/lang/go.js";
import { type GrammarFile, grammar, grammarsDir } from "../../src/localize/lang/grammars.js";
import { JAVA } from "../../src/localize/lang/java.js";
import { JAVASCRIPT, TSX, TYPESCRIPT } from "../../src/localize/lang/javascript.js";
import { PHP } from "../../src/localize/lang/php.js";
import { RUBY } from "../../src/localize/lang/ruby.js";
import { RUST } from "../../src/localize/lang/rust.js";

interface Manifest {
  grammars: {
    package: string;
    version: string;
    files: string[];
    license: string;
    sha256: Record<string, string>;
  }[];
}

const manifest = JSON.parse(readFileSync(join(grammarsDir(), "grammars.json"), "utf8")) as Manifest;
/** Python's grammar is named in python-defs.ts; the others in lang/. */
const NAMED: GrammarFile[] = [
  { pkg: "tree-sitter-python", wasm: "tree-sitter-python.wasm" },
  ...[C, CPP, GO, JAVA, JAVASCRIPT, TYPESCRIPT, TSX, PHP, RUBY, RUST].map((s) => s.grammar),
];

describe("vendored tree-sitter grammars (assets/grammars/)", () => {
  it("every grammar the code names is there, from the package it names, with the sha256 grammars.json records", () => {
    for (const g of NAMED) {
      const entry = manifest.grammars.find((m) => m.files.includes(g.wasm));
      expect(entry?.package, g.wasm).toBe(g.pkg);
      const path = join(grammarsDir(), g.wasm);
      expect(existsSync(path), path).toBe(true);
      expect(createHash("sha256").update(readFileSync(path)).digest("hex"), g.wasm).toBe(
        entry?.sha256[g.wasm],
      );
      expect(existsSync(join(grammarsDir(), "licenses", `${g.pkg}.txt`)), `${g.pkg}'s licence`).toBe(true);
    }
    // and nothing else is kept
    const kept = readdirSync(grammarsDir()).filter((f) => f.endsWith(".wasm"));
    expect(kept.sort()).toEqual(NAMED.map((g) => g.wasm).sort());
  });

  it("each loads in web-tree-sitter, its ABI within the versions web-tree-sitter reads", async () => {
    for (const g of NAMED) {
      const language = await grammar(g);
      expect(language.abiVersion, g.wasm).toBeGreaterThanOrEqual(MIN_COMPATIBLE_VERSION);
      expect(language.abiVersion, g.wasm).toBeLessThanOrEqual(LANGUAGE_VERSION);
    }
  });
});
