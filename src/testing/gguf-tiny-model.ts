import { join } from "node:path";
import { type GgufTensor, type GgufValue, writeGguf } from "./gguf-writer.js";

/**
 * A tiny llama-architecture model with random weights and a small byte-level BPE vocabulary (GPT-2's
 * byte-to-character mapping), written as GGUF for the embedded runtime's tests: no download. Its
 * vocabulary holds lowercase letters, space, newline, backticks and the characters of JSON, so that
 * whatever it is made to write names no absolute path (it has no slash), digits (every JSON value of
 * a tool schema can be written), and the chat markers of ChatML,
 * whose template the file carries (`tokenizer.chat_template`).
 */
export const TINY_CHAT_TEMPLATE = [
  "{% for m in messages %}<|im_start|>{{ m.role }}\n",
  "{% if m.content %}{{ m.content }}{% endif %}",
  "{% if m.tool_calls %}{% for c in m.tool_calls %}{{ c.function.name }} {{ c.function.arguments | tojson }}{% endfor %}{% endif %}",
  "<|im_end|>\n{% endfor %}",
  "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
].join("");

/** GPT-2's byte-to-character map: printable bytes stand for themselves, the others move past 255. */
function byteChars(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(printable(b) ? b : 256 + extra++));
  return chars;
}

const BYTE_CHARS = byteChars();
const encode = (text: string) => [...Buffer.from(text, "utf8")].map((b) => BYTE_CHARS[b]).join("");

/** The plain-text tokens: single characters, then a few longer pieces. */
const CHARS = [..."abcdefghijklmnopqrstuvwxyz0123456789", " ", "\n", "`", "{", "}", '"', ":", ",", "_"];
const PIECES = ["``", "```"];
const SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];

export interface TinyModelOptions {
  /** Seed of the weights (default 1). */
  seed?: number;
  /** Spread of the weights (default 1): larger makes the model's choices more peaked. */
  scale?: number;
  /**
   * A lean toward some tokens, by their text (default: none): added to their logits whatever the
   * context. The tests lean toward line ends, backticks, quotes and the end of turn so that a
   * random reply reaches the end of an action in a few hundred tokens; the grammar still decides
   * which tokens may come where.
   */
  lean?: Record<string, number>;
  /**
   * Metadata entries added to the file's own (default: none); llama.cpp ignores keys it does not
   * read. A long array here makes the model slow to load while staying a model that loads.
   */
  extraMetadata?: Record<string, GgufValue>;
}

/**
 * The lean of the tests and the bench: toward line ends, three backticks, quotes, closing braces and
 * the end of turn (a fenced block or a JSON call then ends within a few hundred tokens).
 */
export const ACTION_LEAN: Readonly<Record<string, number>> = {
  "\n": 2,
  "```": 3,
  '"': 2,
  "}": 2,
  "<|im_end|>": 3,
};

/** The embedding's dimension that carries the lean: the same large value in every token's embedding. */
const LEAN_LEVEL = 8;

/** A small deterministic generator (mulberry32) and normal draws from it. */
function normals(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

/** Writes the tiny model to `dir/tiny.gguf` and returns the path. */
export function writeTinyModel(dir: string, opts: TinyModelOptions = {}): string {
  const tokens = [...SPECIAL, ...CHARS.map(encode), ...PIECES.map(encode)];
  const types = tokens.map((_, i) => (i < SPECIAL.length ? 3 : 1));
  const vocab = tokens.length;
  const embd = 32;
  const heads = 4;
  const ff = 64;
  const layers = 1;
  const draw = normals(opts.seed ?? 1);
  const scale = opts.scale ?? 1;
  const random = (n: number, s: number) => Float32Array.from({ length: n }, () => draw() * s * scale);
  const ones = (n: number) => new Float32Array(n).fill(1);
  const embedding = random(embd * vocab, 1);
  const output = random(embd * vocab, 0.25);
  // Dimension 0 is constant, so after the final norm it is about the same for every position; its
  // output weight then acts as a per-token bias (llama has no bias tensor).
  const lean = opts.lean ?? {};
  const plain = [...SPECIAL, ...CHARS, ...PIECES];
  for (let t = 0; t < vocab; t++) {
    embedding[t * embd] = LEAN_LEVEL;
    output[t * embd] = (lean[plain[t] ?? ""] ?? 0) / 4;
  }
  const tensors: GgufTensor[] = [
    { name: "token_embd.weight", dims: [embd, vocab], data: embedding },
    { name: "output_norm.weight", dims: [embd], data: ones(embd) },
    { name: "output.weight", dims: [embd, vocab], data: output },
  ];
  const w = 1 / Math.sqrt(embd);
  for (let l = 0; l < layers; l++) {
    const p = `blk.${l}`;
    tensors.push(
      { name: `${p}.attn_norm.weight`, dims: [embd], data: ones(embd) },
      { name: `${p}.attn_q.weight`, dims: [embd, embd], data: random(embd * embd, w) },
      { name: `${p}.attn_k.weight`, dims: [embd, embd], data: random(embd * embd, w) },
      { name: `${p}.attn_v.weight`, dims: [embd, embd], data: random(embd * embd, w) },
      { name: `${p}.attn_output.weight`, dims: [embd, embd], data: random(embd * embd, w) },
      { name: `${p}.ffn_norm.weight`, dims: [embd], data: ones(embd) },
      { name: `${p}.ffn_gate.weight`, dims: [embd, ff], data: random(embd * ff, w) },
      { name: `${p}.ffn_up.weight`, dims: [embd, ff], data: random(embd * ff, w) },
      { name: `${p}.ffn_down.weight`, dims: [ff, embd], data: random(ff * embd, 1 / Math.sqrt(ff)) },
    );
  }
  const u32 = (value: number): GgufValue => ({ type: "u32", value });
  const metadata: Record<string, GgufValue> = {
    "general.architecture": { type: "string", value: "llama" },
    "general.name": { type: "string", value: "patchloop-tiny" },
    "llama.context_length": u32(32768),
    "llama.embedding_length": u32(embd),
    "llama.block_count": u32(layers),
    "llama.feed_forward_length": u32(ff),
    "llama.attention.head_count": u32(heads),
    "llama.attention.head_count_kv": u32(heads),
    "llama.rope.dimension_count": u32(embd / heads),
    "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-5 },
    "llama.vocab_size": u32(vocab),
    "tokenizer.ggml.model": { type: "string", value: "gpt2" },
    "tokenizer.ggml.pre": { type: "string", value: "default" },
    "tokenizer.ggml.tokens": { type: "strings", value: tokens },
    "tokenizer.ggml.token_type": { type: "i32s", value: types },
    "tokenizer.ggml.merges": { type: "strings", value: ["` `", "`` `"] },
    "tokenizer.ggml.bos_token_id": u32(0),
    "tokenizer.ggml.eos_token_id": u32(2),
    "tokenizer.ggml.padding_token_id": u32(0),
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.chat_template": { type: "string", value: TINY_CHAT_TEMPLATE },
    ...opts.extraMetadata,
  };
  const path = join(dir, "tiny.gguf");
  writeGguf(path, metadata, tensors);
  return path;
}
