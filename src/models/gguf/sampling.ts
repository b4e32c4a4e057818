/**
 * The `model.model_kwargs` the embedded runtime reads: sampling (`temperature`, `top_p`, `top_k`,
 * `min_p`, `seed`), the reply's length (`max_tokens`) and the chat template's variables
 * (`chat_template_kwargs`). Any other key is a configuration error: there is no server to pass it to.
 */
export interface Sampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  seed?: number;
  maxTokens?: number;
  templateKwargs: Record<string, unknown>;
}

const NUMBERS = {
  temperature: "temperature",
  top_p: "topP",
  top_k: "topK",
  min_p: "minP",
  seed: "seed",
  max_tokens: "maxTokens",
} as const;

/** The sampling settings of `kwargs`, or throws naming the key that cannot be used. */
export function samplingOf(kwargs: Record<string, unknown>): Sampling {
  const out: Sampling = { templateKwargs: {} };
  for (const [key, value] of Object.entries(kwargs)) {
    if (key === "chat_template_kwargs") {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new Error(
          `model.model_kwargs.chat_template_kwargs must be a mapping; received ${JSON.stringify(value)}`,
        );
      out.templateKwargs = value as Record<string, unknown>;
      continue;
    }
    const field = NUMBERS[key as keyof typeof NUMBERS];
    if (!field)
      throw new Error(
        `model.model_kwargs.${key} is not read by the embedded GGUF runtime (there is no server to send it to); it reads ${[...Object.keys(NUMBERS), "chat_template_kwargs"].join(", ")}`,
      );
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      throw new Error(
        `model.model_kwargs.${key} must be a number of at least 0; received ${JSON.stringify(value)}`,
      );
    if ((key === "top_k" || key === "seed" || key === "max_tokens") && !Number.isInteger(value))
      throw new Error(`model.model_kwargs.${key} must be a whole number; received ${value}`);
    out[field] = value;
  }
  return out;
}
