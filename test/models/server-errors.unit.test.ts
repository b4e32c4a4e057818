import { describe, expect, it } from "vitest";
import { sizeVerdict } from "../../src/models/server-errors.js";

describe("size errors of every server", () => {
  const cases: Array<[string, string, ReturnType<typeof sizeVerdict>]> = [
    [
      "vLLM 2026, output too large",
      "This model's maximum context length is 32768 tokens. However, you requested 8192 output tokens and your prompt contains at least 24577 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=24577)",
      { kind: "output", contextLength: 32768, promptTokens: 24577, fits: 8191 },
    ],
    [
      "vLLM 2026, 0 output tokens: the prompt alone",
      "This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens.",
      { kind: "context", contextLength: 262144, promptTokens: 262145 },
    ],
    [
      "vLLM 2025, max_tokens too large",
      "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None",
      { kind: "output", contextLength: 4096, promptTokens: 2778, fits: 1318 },
    ],
    [
      "vLLM, prompt alone",
      "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
      { kind: "context", contextLength: 4096, promptTokens: 5000 },
    ],
    [
      "vLLM older, prompt fills the window",
      "This model's maximum context length is 32768 tokens. However, you requested 34816 tokens (32768 in the messages, 2048 in the completion).",
      { kind: "context", contextLength: 32768, promptTokens: 32768 },
    ],
    [
      "OpenAI, completion too large for the model",
      "max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you provided 32000.",
      { kind: "output", contextLength: null, promptTokens: null, fits: 16384 },
    ],
    [
      "SGLang, prompt alone",
      "The input (516368 tokens) is longer than the model's context length (262144 tokens).",
      { kind: "context", contextLength: 262144, promptTokens: 516368 },
    ],
    [
      "SGLang, prompt + completion",
      "Requested token count exceeds the model's maximum context length of 64000 tokens. You requested a total of 71897 tokens: 7897 tokens from the input messages and 64000 tokens for the completion.",
      { kind: "output", contextLength: 64000, promptTokens: 7897, fits: 56102 },
    ],
    [
      "llama.cpp",
      "request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it",
      { kind: "context", contextLength: 8192, promptTokens: 13392 },
    ],
    [
      "Ollama",
      "the input length exceeds the context length",
      { kind: "context", contextLength: null, promptTokens: null },
    ],
    [
      "Anthropic, prompt",
      "prompt is too long: 208310 tokens > 200000 maximum",
      { kind: "context", contextLength: 200000, promptTokens: 208310 },
    ],
    [
      "Anthropic, input + max_tokens",
      "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
      { kind: "output", contextLength: 200000, promptTokens: 188240, fits: 11760 },
    ],
    ["a rate limit", "Rate limit reached for requests", null],
    [
      "thousands separators",
      "This model's maximum context length is 131,072 tokens. However, your request has 140,000 input tokens.",
      { kind: "context", contextLength: 131072, promptTokens: 140000 },
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      expect(sizeVerdict(text)).toEqual(expected);
    });
  }
});
