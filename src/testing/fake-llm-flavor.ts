/**
 * How each real server differs, for the fake LLM server (`flavor`): where it puts the model's
 * reasoning, what it answers on its self-description endpoints, which constraint fields it
 * understands, and its error bodies when a prompt does not fit. Facts relied on (docs/models.md):
 *
 * - vLLM: reasoning in `reasoning` (since 0.10; `reasoning_content` before, flavor `vllm-legacy`);
 *   `GET /v1/models` with `owned_by: "vllm"` and `max_model_len`; `structured_outputs: {regex}`;
 *   errors `{"error": {message, type, param, code}}` (2026) or flat `{"object": "error", ...}` (older).
 * - SGLang: `reasoning_content`; `owned_by: "sglang"`, `max_model_len`; `regex`; flat error object.
 * - llama.cpp: `reasoning_content`; `owned_by: "llamacpp"` with `meta.n_ctx`, `GET /props`; `grammar`
 *   (refused together with tools); `{"error": {code, message, type: "exceed_context_size_error",
 *   n_prompt_tokens, n_ctx}}`.
 * - Ollama: `reasoning`; `GET /api/version`; no text constraint, ignores `tool_choice`;
 *   `{"error": {message, type, param, code}}`.
 * - OpenAI: no reasoning text; `{"error": {...}}` with `code: "context_length_exceeded"`.
 * - `think-tags`: a server without a reasoning parser: `<think>...</think>` stays in the content.
 * - `deepseek`: DeepSeek's API in thinking mode (V4 Flash / Pro): `reasoning_content`; `owned_by:
 *   "deepseek"`; a request whose assistant turns after the last user message (the current
 *   tool-call chain) lack their `reasoning_content` gets the API's 400
 *   (`DEEPSEEK_MISSING_REASONING`), unless thinking is off (`thinking: {type: "disabled"}` or
 *   `chat_template_kwargs.thinking: false`).
 */
export type FakeFlavor =
  | "vllm"
  | "vllm-legacy"
  | "sglang"
  | "llamacpp"
  | "ollama"
  | "openai"
  | "think-tags"
  | "deepseek";

/** DeepSeek's words (HTTP 400, `invalid_request_error`) for a tool-call chain sent without its reasoning. */
export const DEEPSEEK_MISSING_REASONING =
  "The `reasoning_content` in the thinking mode must be passed back to the API.";

/** The message field (or `<think>` in the content) a flavor returns reasoning in; null: none. */
export function reasoningFieldOf(flavor: FakeFlavor): "reasoning" | "reasoning_content" | "think" | null {
  if (flavor === "vllm" || flavor === "ollama") return "reasoning";
  if (flavor === "vllm-legacy" || flavor === "sglang" || flavor === "llamacpp" || flavor === "deepseek")
    return "reasoning_content";
  if (flavor === "think-tags") return "think";
  return null;
}

/** The body of a GET the flavor answers (`/v1/models`, `/props`, `/api/version`), or null for a 404. */
export function selfDescription(
  flavor: FakeFlavor,
  path: string,
  model: string,
  contextLength: number,
): Record<string, unknown> | null {
  if (path === "/v1/models") {
    const base = { id: model, object: "model", created: 1_700_000_000 };
    if (flavor === "vllm" || flavor === "vllm-legacy")
      return { object: "list", data: [{ ...base, owned_by: "vllm", max_model_len: contextLength }] };
    if (flavor === "sglang")
      return { object: "list", data: [{ ...base, owned_by: "sglang", max_model_len: contextLength }] };
    if (flavor === "llamacpp")
      return {
        object: "list",
        data: [{ ...base, owned_by: "llamacpp", meta: { n_ctx: contextLength, n_ctx_train: 131072 } }],
      };
    if (flavor === "ollama") return { object: "list", data: [{ ...base, owned_by: "library" }] };
    if (flavor === "openai") return { object: "list", data: [{ ...base, owned_by: "openai" }] };
    if (flavor === "deepseek")
      return { object: "list", data: [{ id: model, object: "model", owned_by: "deepseek" }] };
    return null;
  }
  if (path === "/props" && flavor === "llamacpp")
    return { model_alias: model, default_generation_settings: { n_ctx: contextLength } };
  if (path === "/api/version" && flavor === "ollama") return { version: "0.12.0" };
  return null;
}

/**
 * What the flavor says about a request's constraint fields: null when it is one it understands
 * (or there is none), else the 400 body a careful fake sends (a real server would often ignore the
 * field silently, which a test must not miss).
 */
export function constraintProblem(flavor: FakeFlavor, body: Record<string, unknown>): string | null {
  const has = (k: string) => body[k] !== undefined;
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  if (has("guided_regex"))
    return `fake ${flavor}: guided_regex was removed in vLLM 0.12; send structured_outputs.regex`;
  if (has("structured_outputs") && flavor !== "vllm" && flavor !== "vllm-legacy")
    return `fake ${flavor}: unknown request field structured_outputs (only vLLM reads it)`;
  if (has("regex") && flavor !== "sglang")
    return `fake ${flavor}: unknown request field regex (only SGLang reads it)`;
  if (has("grammar") && flavor !== "llamacpp")
    return `fake ${flavor}: unknown request field grammar (only llama.cpp reads it)`;
  if (has("grammar") && tools) return "Cannot use custom grammar constraints with tools.";
  if (has("tool_choice") && flavor === "ollama") return "fake ollama: Ollama ignores tool_choice";
  if (has("tool_choice") && body.tool_choice === "required" && !tools)
    return `fake ${flavor}: tool_choice "required" without tools`;
  const so = body.structured_outputs as Record<string, unknown> | undefined;
  if (so !== undefined && typeof so?.regex !== "string")
    return `fake ${flavor}: structured_outputs needs a regex string here`;
  return null;
}

/**
 * DeepSeek's check of a request in thinking mode: every assistant message after the last user
 * message must carry its `reasoning_content` (a non-empty string). Null when the request passes,
 * the flavor is not `deepseek`, or thinking is off.
 */
export function reasoningProblem(flavor: FakeFlavor, body: Record<string, unknown>): string | null {
  if (flavor !== "deepseek" || !Array.isArray(body.messages)) return null;
  const thinking = body.thinking as { type?: unknown } | undefined;
  const kwargs = body.chat_template_kwargs as { thinking?: unknown } | undefined;
  if (thinking?.type === "disabled" || kwargs?.thinking === false) return null;
  const messages = body.messages as Array<Record<string, unknown>>;
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m?.role === "user") lastUser = i;
  });
  const missing = messages.some(
    (m, i) =>
      i > lastUser &&
      m?.role === "assistant" &&
      !(typeof m.reasoning_content === "string" && m.reasoning_content !== ""),
  );
  return missing ? DEEPSEEK_MISSING_REASONING : null;
}

/** The pattern of a request's constraint, for checking a scripted reply against it. */
export function constraintRegex(body: Record<string, unknown>): string | null {
  const so = body.structured_outputs as Record<string, unknown> | undefined;
  if (typeof so?.regex === "string") return so.regex;
  if (typeof body.regex === "string") return body.regex;
  return null;
}

/** The sizes a context error reports. */
export interface Sizes {
  contextLength: number;
  promptTokens: number;
  /** The request's max_tokens; null when it had none. */
  maxTokens: number | null;
}

/** The flavor's error body (HTTP 400) for a request that does not fit, in its own words. */
export function contextErrorBody(flavor: FakeFlavor, s: Sizes): Record<string, unknown> {
  const { contextLength: n, promptTokens: p, maxTokens: o } = s;
  const promptOnly = o === null || p >= n;
  if (flavor === "vllm") {
    const message = promptOnly
      ? `This model's maximum context length is ${n} tokens. However, your request has ${p} input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=${p})`
      : `This model's maximum context length is ${n} tokens. However, you requested ${o} output tokens and your prompt contains at least ${p} input tokens, for a total of at least ${p + (o ?? 0)} tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=${p})`;
    return { error: { message, type: "BadRequestError", param: "input_tokens", code: 400 } };
  }
  if (flavor === "vllm-legacy") {
    const message = promptOnly
      ? `This model's maximum context length is ${n} tokens. However, you requested ${p} tokens in the messages, Please reduce the length of the messages.`
      : `This model's maximum context length is ${n} tokens. However, you requested ${p + (o ?? 0)} tokens (${p} in the messages, ${o} in the completion). Please reduce the length of the messages or completion.`;
    return { object: "error", message, type: "BadRequestError", param: null, code: 400 };
  }
  if (flavor === "sglang") {
    const message = promptOnly
      ? `The input (${p} tokens) is longer than the model's context length (${n} tokens).`
      : `Requested token count exceeds the model's maximum context length of ${n} tokens. You requested a total of ${p + (o ?? 0)} tokens: ${p} tokens from the input messages and ${o} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`;
    return { object: "error", message, type: "BadRequest", param: null, code: 400 };
  }
  if (flavor === "llamacpp")
    return {
      error: {
        code: 400,
        message: `request (${p} tokens) exceeds the available context size (${n} tokens), try increasing it`,
        type: "exceed_context_size_error",
        n_prompt_tokens: p,
        n_ctx: n,
      },
    };
  if (flavor === "ollama")
    return {
      error: {
        message: "the input length exceeds the context length",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    };
  return {
    error: {
      message: promptOnly
        ? `This model's maximum context length is ${n} tokens. However, your messages resulted in ${p} tokens. Please reduce the length of the messages.`
        : `This model's maximum context length is ${n} tokens. However, you requested ${p + (o ?? 0)} tokens (${p} in the messages, ${o} in the completion). Please reduce the length of the messages or completion.`,
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  };
}

/** Whether the flavor refuses a request whose prompt fits but prompt + max_tokens does not (llama.cpp and Ollama do not: they stop at the window). */
export function refusesOutputOverflow(flavor: FakeFlavor): boolean {
  return flavor !== "llamacpp" && flavor !== "ollama";
}
