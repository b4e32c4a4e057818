/**
 * Error bodies in the shapes real servers send, for the fake LLM server. The wording of the
 * context-length messages follows what each server actually says, because clients recognise
 * those errors by it.
 */

/** OpenAI-style error envelope: `{error: {message, type, param, code}}`. */
export function openaiErrorBody(
  message: string,
  type = "invalid_request_error",
  code: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/** Anthropic-style error envelope: `{type: "error", error: {type, message}}`. */
export function anthropicErrorBody(type: string, message: string): Record<string, unknown> {
  return { type: "error", error: { type, message } };
}

/** The hosted OpenAI API when the prompt does not fit (HTTP 400). */
export function openaiContextLengthBody(): Record<string, unknown> {
  return openaiErrorBody(
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
    "invalid_request_error",
    "context_length_exceeded",
  );
}

/** vLLM's flat error object (HTTP 400), as older releases send it. */
export function vllmContextLengthBody(): Record<string, unknown> {
  return {
    object: "error",
    message:
      "This model's maximum context length is 32768 tokens. However, you requested 34816 tokens (32768 in the messages, 2048 in the completion). Please reduce the length of the messages or completion.",
    type: "BadRequestError",
    param: null,
    code: 400,
  };
}

/** llama.cpp's server (HTTP 400). */
export function llamaCppContextLengthBody(): Record<string, unknown> {
  return {
    error: {
      code: 400,
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: 9011,
      n_ctx: 8192,
    },
  };
}

/** The Anthropic API (HTTP 400). */
export function anthropicPromptTooLongBody(): Record<string, unknown> {
  return anthropicErrorBody("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum");
}
