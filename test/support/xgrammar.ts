import { createRequire } from "node:module";
import { dirname } from "node:path";

/** The parts of xgrammar (the grammar engine of vLLM and SGLang, compiled to WebAssembly) the tests use. */
export interface XGrammar {
  Grammar: {
    fromEBNF(ebnf: string, root?: string): Promise<unknown>;
    fromStructuralTag(tag: unknown): Promise<unknown>;
  };
  Testings: { isGrammarAcceptString(grammar: unknown, input: string): Promise<boolean> };
}

let loaded: Promise<XGrammar> | null = null;

/**
 * Loads @mlc-ai/web-xgrammar. Its bundle is a UMD script in a `"type": "module"` package, whose
 * Emscripten loader looks for CommonJS globals under Node: they are provided before the import,
 * and the module is read from `globalThis.xgrammar`.
 */
export function loadXGrammar(): Promise<XGrammar> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve("@mlc-ai/web-xgrammar");
    const g = globalThis as Record<string, unknown>;
    g.require ??= require;
    g.__filename ??= file;
    g.__dirname ??= dirname(file);
    await import(file);
    return g.xgrammar as XGrammar;
  })();
  return loaded;
}

/** Compiles a regex the way vLLM's structured_outputs.regex and SGLang's regex are (xgrammar's regex converter). */
export async function xgrammarRegex(pattern: string): Promise<(input: string) => Promise<boolean>> {
  const xg = await loadXGrammar();
  const grammar = await xg.Grammar.fromStructuralTag({
    type: "structural_tag",
    format: { type: "regex", pattern },
  });
  return (input) => xg.Testings.isGrammarAcceptString(grammar, input);
}

/** Compiles a GBNF grammar with xgrammar's EBNF parser (which reads llama.cpp's GBNF notation). */
export async function xgrammarGbnf(gbnf: string): Promise<(input: string) => Promise<boolean>> {
  const xg = await loadXGrammar();
  const grammar = await xg.Grammar.fromEBNF(gbnf);
  return (input) => xg.Testings.isGrammarAcceptString(grammar, input);
}
