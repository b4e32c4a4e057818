import { join } from "node:path";
import { Language, Parser } from "web-tree-sitter";
import { packageRoot } from "../../package-root.js";

/**
 * The tree-sitter grammars the localizer reads code with: each grammar's .wasm, as its npm package
 * (`tree-sitter-python`, `tree-sitter-go`, ...) publishes it, kept in patchloop's
 * assets/grammars/ (its README says where each came from; scripts/vendor-grammars.mjs takes them
 * again), run by `web-tree-sitter` (no native build, nothing fetched at run time). Each grammar is
 * loaded once per process, when first needed.
 */

/** A grammar's .wasm: the npm package it was taken from and the file's name (in assets/grammars/). */
export interface GrammarFile {
  pkg: string;
  wasm: string;
}

/** The folder of the vendored .wasm files (from src/ and from dist/ alike). */
export function grammarsDir(): string {
  return join(packageRoot(), "assets", "grammars");
}

let init: Promise<void> | undefined;
const loaded = new Map<string, Promise<Language>>();

/** The grammar in `file`, loaded once (a failed load is tried again next time). */
export function grammar(file: GrammarFile): Promise<Language> {
  const key = `${file.pkg}/${file.wasm}`;
  let ready = loaded.get(key);
  if (!ready) {
    ready = (async () => {
      init ??= Parser.init().catch((err: unknown) => {
        init = undefined;
        throw err;
      });
      await init;
      return Language.load(join(grammarsDir(), file.wasm));
    })();
    loaded.set(key, ready);
    ready.catch(() => loaded.delete(key));
  }
  return ready;
}

const parsers = new Map<Language, Parser>();

/** A parser set to `language`, one per grammar, shared (parsing is synchronous, so never interleaved). */
export function parserFor(language: Language): Parser {
  let p = parsers.get(language);
  if (!p) {
    p = new Parser();
    p.setLanguage(language);
    parsers.set(language, p);
  }
  return p;
}
