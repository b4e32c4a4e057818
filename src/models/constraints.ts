import type { ActionConstraint, ServerKind } from "./types.js";

/** Request fields that enforce an action format, per server; one set only is ever sent. */
export const CONSTRAINT_FIELDS = ["structured_outputs", "regex", "grammar", "tool_choice"] as const;

const NAMES: Record<ServerKind, string> = {
  vllm: "vLLM",
  sglang: "SGLang",
  llamacpp: "llama.cpp",
  ollama: "Ollama",
  openai: "the OpenAI API",
};

/**
 * The request fields that make `server` enforce `constraint` (`model.constrain_actions`), or why it
 * cannot:
 * - fenced text: vLLM `structured_outputs: {regex}` (the `guided_regex` field was removed in vLLM
 *   0.12), SGLang `regex`, llama.cpp `grammar` (GBNF);
 * - tool calls: `tool_choice: "required"` on vLLM, SGLang, llama.cpp and the OpenAI API.
 * Ollama's OpenAI endpoint has neither (its `format` takes a JSON schema only and it ignores
 * `tool_choice`), the OpenAI API takes no regex.
 */
export function constraintFields(
  server: ServerKind | null,
  constraint: ActionConstraint,
): { fields: Record<string, unknown> } | { error: string } {
  if (server === null)
    return {
      error:
        "model.constrain_actions is on, but the server could not be identified from GET /v1/models, /props or /api/version; set model.server (vllm, sglang, llamacpp, ollama or openai)",
    };
  if (constraint.kind === "tool_call") {
    if (server === "ollama")
      return {
        error: `model.constrain_actions: ${NAMES[server]} ignores tool_choice, so it cannot be made to call a tool; turn model.constrain_actions off`,
      };
    return { fields: { tool_choice: "required" } };
  }
  if (server === "vllm") return { fields: { structured_outputs: { regex: constraint.regex } } };
  if (server === "sglang") return { fields: { regex: constraint.regex } };
  if (server === "llamacpp") return { fields: { grammar: constraint.gbnf } };
  return {
    error: `model.constrain_actions: ${NAMES[server]} cannot enforce a text format (the \`\`\`${constraint.tag} block); use vLLM, SGLang or llama.cpp, or turn model.constrain_actions off`,
  };
}
