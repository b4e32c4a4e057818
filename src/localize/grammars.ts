import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

/**
 * The tree-sitter grammars the localizer reads code with: each grammar's own .wasm from its npm
 * package (`tree-sitter-python`, `tree-sitter-go`, ...), run by `web-tree-sitter` (no native
 * build, nothing fetched at run time). Each grammar is loaded once per process, when first needed.
 */

/** Where a grammar's .wasm is: its package and the file's name in it. */
export interface GrammarFile {
  pkg: string;
  wasm: string;
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
      return Language.load(createRequire(import.meta.url).resolve(`${file.pkg}/${file.wasm}`));
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
