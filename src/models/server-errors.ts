/**
 * What a server's error text says about sizes: the prompt does not fit the context window at all
 * (`context`), or it fits but prompt + the requested max tokens does not (`output`: lower
 * max_tokens and try again). Wordings followed (facts of each server, see docs/models.md):
 *
 * - vLLM (2025-2026): "This model's maximum context length is N tokens. However, you requested O
 *   output tokens and your prompt contains at least P input tokens, for a total of at least T
 *   tokens." and "... However, your request has P input tokens."
 * - vLLM (2025): "'max_tokens' or 'max_completion_tokens' is too large: O. This model's maximum
 *   context length is N tokens and your request has P input tokens (O > N - P)."
 * - vLLM (older) and OpenAI: "... However, you requested T tokens (P in the messages, O in the
 *   completion)." / "... However, your messages resulted in P tokens."
 * - OpenAI: "max_tokens is too large: O. This model supports at most M completion tokens".
 * - SGLang: "The input (P tokens) is longer than the model's context length (N tokens)." and
 *   "Requested token count exceeds the model's maximum context length of N tokens. You requested a
 *   total of T tokens: P tokens from the input messages and O tokens for the completion."
 * - llama.cpp: "request (P tokens) exceeds the available context size (N tokens), try increasing
 *   it" (type `exceed_context_size_error`, with `n_prompt_tokens` and `n_ctx`).
 * - Ollama: "the input length exceeds the context length".
 * - Anthropic: "prompt is too long: P tokens > N maximum" and "input length and `max_tokens`
 *   exceed context limit: P + O > N, ...".
 */
export type SizeVerdict =
  | { kind: "context"; contextLength: number | null; promptTokens: number | null }
  | { kind: "output"; contextLength: number | null; promptTokens: number | null; fits: number };

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const n = Number(s.replace(/[,_]/g, ""));
  return Number.isFinite(n) ? n : null;
};

const N = "(\\d[\\d,_]*)";

/** Rules tried in order; each returns a verdict or null. */
const RULES: Array<(t: string) => SizeVerdict | null> = [
  // vLLM 2025-2026: requested O output tokens and your prompt contains at least P input tokens
  (t) => {
    const m = new RegExp(
      `maximum context length is ${N} tokens\\. However, you requested ${N} output tokens and your prompt contains (?:at least )?${N} input tokens`,
      "i",
    ).exec(t);
    if (!m) return null;
    return sized(num(m[1]), num(m[3]), num(m[2]), 0);
  },
  // vLLM 2025: 'max_tokens' or 'max_completion_tokens' is too large: O. ... context length is N tokens and your request has P input tokens
  (t) => {
    const m = new RegExp(
      `is too large: ${N}\\. This model's maximum context length is ${N} tokens and your request has ${N} input tokens`,
      "i",
    ).exec(t);
    if (!m) return null;
    return sized(num(m[2]), num(m[3]), num(m[1]), 0);
  },
  // vLLM older / OpenAI: you requested T tokens (P in the messages, O in the completion)
  (t) => {
    const m = new RegExp(
      `maximum context length is ${N} tokens\\. However, you requested ${N} tokens \\(${N} in the messages, ${N} in the completion\\)`,
      "i",
    ).exec(t);
    if (!m) return null;
    return sized(num(m[1]), num(m[3]), num(m[4]), 0);
  },
  // vLLM / OpenAI, prompt alone: your request has P input tokens / your messages resulted in P tokens / you requested P tokens in the messages
  (t) => {
    const m = new RegExp(
      `maximum context length is ${N} tokens\\. However, (?:your request has|your messages resulted in|you requested) ${N}`,
      "i",
    ).exec(t);
    if (!m) return null;
    return { kind: "context", contextLength: num(m[1]), promptTokens: num(m[2]) };
  },
  // OpenAI: max_tokens is too large: O. This model supports at most M completion tokens
  (t) => {
    const m = new RegExp(`too large: ${N}\\. This model supports at most ${N} completion tokens`, "i").exec(
      t,
    );
    if (!m) return null;
    const most = num(m[2]);
    return most !== null && most > 0
      ? { kind: "output", contextLength: null, promptTokens: null, fits: most }
      : null;
  },
  // SGLang: The input (P tokens) is longer than the model's context length (N tokens).
  (t) => {
    const m = new RegExp(
      `The input \\(${N} tokens\\) is longer than the model's context length \\(${N} tokens\\)`,
      "i",
    ).exec(t);
    if (!m) return null;
    return { kind: "context", contextLength: num(m[2]), promptTokens: num(m[1]) };
  },
  // SGLang: maximum context length of N tokens. You requested a total of T tokens: P tokens from the input messages and O tokens for the completion
  (t) => {
    const m = new RegExp(
      `maximum context length of ${N} tokens\\. You requested a total of ${N} tokens: ${N} tokens from the input messages and ${N} tokens`,
      "i",
    ).exec(t);
    if (!m) return null;
    // SGLang refuses when prompt + max_new_tokens >= the context length: one token less fits.
    return sized(num(m[1]), num(m[3]), num(m[4]), 1);
  },
  // llama.cpp: request (P tokens) exceeds the available context size (N tokens)
  (t) => {
    const m = new RegExp(`\\(${N} tokens\\) exceeds the available context size \\(${N} tokens\\)`, "i").exec(
      t,
    );
    if (m) return { kind: "context", contextLength: num(m[2]), promptTokens: num(m[1]) };
    const typed = /exceed_context_size_error/.exec(t);
    if (!typed) return null;
    const ctx = /"n_ctx"\s*:\s*(\d+)/.exec(t);
    const prompt = /"n_prompt_tokens"\s*:\s*(\d+)/.exec(t);
    return { kind: "context", contextLength: num(ctx?.[1]), promptTokens: num(prompt?.[1]) };
  },
  // Anthropic: input length and `max_tokens` exceed context limit: P + O > N
  (t) => {
    const m = new RegExp(
      `input length and \`?max_tokens\`? exceed context limit: ${N} \\+ ${N} > ${N}`,
      "i",
    ).exec(t);
    if (!m) return null;
    return sized(num(m[3]), num(m[1]), num(m[2]), 0);
  },
  // Anthropic: prompt is too long: P tokens > N maximum
  (t) => {
    const m = new RegExp(`prompt is too long: ${N} tokens > ${N} maximum`, "i").exec(t);
    if (!m) return null;
    return { kind: "context", contextLength: num(m[2]), promptTokens: num(m[1]) };
  },
  // Wordings without numbers (Ollama, OpenAI's code, generic)
  (t) =>
    /context_length_exceeded|exceeds the context length|maximum context length|prompt is too long|longer than the model's context length|exceeds? the available context size/i.test(
      t,
    )
      ? { kind: "context", contextLength: null, promptTokens: null }
      : null,
];

/** Prompt P fits a window of N when P < N; then O is lowered to N - P - slack. */
function sized(n: number | null, p: number | null, o: number | null, slack: number): SizeVerdict {
  if (n === null || p === null || p >= n) return { kind: "context", contextLength: n, promptTokens: p };
  const fits = n - p - slack;
  if (fits < 1 || (o !== null && o <= fits)) return { kind: "context", contextLength: n, promptTokens: p };
  return { kind: "output", contextLength: n, promptTokens: p, fits };
}

/** What an error body says about sizes, or null when it is about something else. */
export function sizeVerdict(bodyText: string): SizeVerdict | null {
  for (const rule of RULES) {
    const v = rule(bodyText);
    if (v) return v;
  }
  return null;
}
