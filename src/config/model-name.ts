/** `model.model_name` taken apart. */
export type ParsedModelName =
  | { provider: "openai" | "anthropic"; model: string; via?: LitellmPrefix }
  | { provider: "replay"; path: string }
  | { provider: "gguf"; path: string };

const PROVIDERS = ["openai", "anthropic"] as const;

/** litellm provider prefixes (mini-swe-agent model names) that mean an OpenAI-compatible server. */
export const LITELLM_PREFIXES = ["hosted_vllm", "ollama", "ollama_chat", "openai_like", "lm_studio"] as const;
export type LitellmPrefix = (typeof LITELLM_PREFIXES)[number];

/**
 * `openai/<name>`, `anthropic/<name>`, `replay:<file>`, `gguf:<file>` (a model run in this process,
 * src/models/gguf/); a name without a slash means
 * `openai/<name>`. litellm's `hosted_vllm/<name>`, `ollama/<name>`, `ollama_chat/<name>`,
 * `openai_like/<name>` and `lm_studio/<name>` (as mini-swe-agent configs write them) mean the served
 * model `<name>` on an OpenAI-compatible server (`via` says which prefix it was). Only the first slash separates the provider, so `openai/Qwen/Qwen3-8B` is the
 * served model `Qwen/Qwen3-8B`. Throws on an empty name or an unknown provider.
 */
export function parseModelName(name: string): ParsedModelName {
  const trimmed = name.trim();
  if (trimmed.startsWith("replay:")) {
    const path = trimmed.slice("replay:".length);
    if (path === "")
      throw new Error('model.model_name "replay:" names no file; use replay:<trajectory file>');
    return { provider: "replay", path };
  }
  if (trimmed.startsWith("gguf:")) return { provider: "gguf", path: trimmed.slice("gguf:".length) };
  if (trimmed === "") {
    throw new Error(
      "model.model_name is empty; use openai/<name>, anthropic/<name>, gguf:<file.gguf> or replay:<file>",
    );
  }
  const slash = trimmed.indexOf("/");
  if (slash < 0) return { provider: "openai", model: trimmed };
  const prefix = trimmed.slice(0, slash);
  const model = trimmed.slice(slash + 1);
  const litellm = LITELLM_PREFIXES.find((p) => p === prefix);
  if (litellm && model !== "") return { provider: "openai", model, via: litellm };
  const provider = PROVIDERS.find((p) => p === prefix);
  if (!provider) {
    throw new Error(
      `Unknown model provider "${prefix}" in model.model_name "${name}". Use openai/<name> (any ` +
        "OpenAI-compatible server: vLLM, llama.cpp, SGLang, Ollama, ...), anthropic/<name>, or " +
        `replay:<file>. A served model name that contains a slash needs the prefix: openai/${trimmed}.`,
    );
  }
  if (model === "") throw new Error(`model.model_name "${name}" has no model after "${prefix}/"`);
  return { provider, model };
}
