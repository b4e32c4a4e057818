/**
 * Chat messages use the OpenAI chat-completions shape everywhere (in the loop, in trajectories);
 * the Anthropic client converts at its edge. `extra` carries patchloop's own bookkeeping and is
 * never sent to a model.
 */
export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | ContentPart[] | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  /**
   * The model's thinking, apart from its answer (`content`): read from `reasoning` /
   * `reasoning_content` or split off `<think>...</think>` (reasoning.ts). Sent back as
   * `model.reasoning_history` says (reasoning-chain.ts).
   */
  reasoning?: string;
  /** Anthropic's thinking blocks as they came, signatures included: the API takes them back only unchanged. */
  thinking_blocks?: ThinkingBlock[];
  extra?: MessageExtra;
}

/** A thinking block of the Anthropic Messages API (`redacted_thinking`: encrypted by the API). */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/**
 * patchloop's bookkeeping on a recorded message, never sent to a model. A reply carries what the
 * call gave (`raw` body, `finish_reason`, `usage`, `cost`, the parsed `actions`, how the `request`
 * was laid out); an observation its `returncode`, `timed_out` and `duration_ms`; a message
 * answering a reply that could not run `format_error` and its `kind`. Trajectories of other tools
 * keep their own keys here: code reading those (the replay model, the viewer) checks what it finds.
 */
export interface MessageExtra {
  timestamp?: string;
  step?: number;
  raw?: unknown;
  finish_reason?: string | null;
  usage?: Usage;
  cost?: number;
  context_length?: number;
  max_tokens_lowered?: MaxTokensLowered;
  actions?: RecordedAction[];
  request?: RequestRecord;
  returncode?: number;
  timed_out?: boolean;
  duration_ms?: number;
  format_error?: boolean;
  kind?: "format_error" | "length" | "images" | "actions_dropped";
  /** A reply's actions past `agent.max_actions_per_reply`: not run, and cut from the reply's tool calls. */
  dropped_actions?: number;
}

/**
 * One model call's usage: what every model client returns, the `model_call` event carries (also
 * across the queue) and the trajectory records as `extra.usage` of the reply, in this casing.
 * Totals over calls are `ModelStats` (agent/model-stats.ts).
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Part of completion_tokens spent thinking, when the server reports it (or estimated, below). */
  reasoning_tokens?: number;
  /** The reasoning's tokens were estimated (4 characters a token): the server did not say. */
  reasoning_tokens_estimated?: boolean;
  /**
   * Part of prompt_tokens the server served from its prefix cache, when it reports it (OpenAI and
   * vLLM: `usage.prompt_tokens_details.cached_tokens`; Anthropic: `cache_read_input_tokens`).
   */
  cached_tokens?: number;
}

/** An action of a reply as its trajectory records it. */
export type RecordedAction = { tool: string; args: Record<string, unknown> } | { command: string };

/**
 * `extra.request` of a reply: how the request that produced it was laid out (agent/history/).
 * `shared_tokens` is patchloop's own count of the prefix shared with the previous request: the
 * previous call's prompt tokens when the whole previous request is a prefix of this one (the
 * append-only case), else this call's prompt tokens times the shared share of the characters (an
 * estimate: the loop runs no tokenizer; `patchloop tokens` counts exactly offline).
 */
export interface RequestRecord {
  policy: string;
  messages: number;
  shared_messages: number;
  /** The whole previous request is a prefix of this one. */
  shared_previous: boolean;
  shared_tokens: number;
  masked: number;
  /** This request moved the masking boundary (earlier messages changed). */
  block_step: boolean;
}

/** A tool as offered to a model: JSON Schema parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A wait before the next try of a model call (shown on the console and in the batch progress). */
export interface RetryNotice {
  /** The try that failed (1 = the first). */
  tryNumber: number;
  maxTries: number;
  /** Milliseconds until the next try. */
  waitMs: number;
  /** What failed, in words (status and the server's message, or the connection problem). */
  reason: string;
}

/**
 * The action format a server may be asked to enforce (`model.constrain_actions`): free text then
 * exactly one block fenced with ```TAG, or at least one tool call.
 */
export type ActionConstraint =
  | {
      kind: "fenced";
      tag: string;
      /** The format as a regular expression (vLLM `structured_outputs.regex`, SGLang `regex`). */
      regex: string;
      /** The format as a GBNF grammar (llama.cpp `grammar`). */
      gbnf: string;
    }
  | { kind: "tool_call" };

/** Which server an OpenAI-compatible endpoint is (`model.server`, or detected). */
export type ServerKind = "vllm" | "sglang" | "llamacpp" | "ollama" | "openai";

/** The request's max-token field lowered after the server said prompt + max_tokens does not fit. */
export interface MaxTokensLowered {
  field: string;
  from: number | null;
  to: number;
  context_length: number | null;
}

export interface ModelRequest {
  messages: ChatMessage[];
  /** Present for the tool_calls protocol only. */
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /** Called before each wait between tries. */
  onRetry?: (notice: RetryNotice) => void;
  /** The action format, for servers asked to enforce it (`model.constrain_actions`). */
  constraint?: ActionConstraint;
}

export type ModelErrorKind =
  /** The prompt no longer fits the model's context window. Ends the task with ContextExceeded. */
  | "context_exceeded"
  /** Retryable failures (429, 5xx, resets, timeouts) kept failing past the retry budget. */
  | "retries_exhausted"
  /** A non-retryable failure (400, 401, 403, 404, malformed response, bad config). */
  | "fatal"
  /** The request was aborted through `signal`. */
  | "aborted";

export type ModelResult =
  | {
      ok: true;
      /** The assistant message (content text and/or tool_calls). */
      message: ChatMessage;
      /** `stop`, `length`, `tool_calls`, ... as reported (Anthropic stop reasons are mapped). */
      finishReason: string | null;
      usage: Usage;
      /** Cost of this call in USD (0 for local endpoints without a configured price). */
      cost: number;
      /** Raw response body, for the trajectory. */
      raw: unknown;
      tries: number;
      /** The model's context window, when the server reported it (its model list or an error). */
      contextLength?: number;
      /** Set when this call was retried with a smaller max_tokens. */
      maxTokensLowered?: MaxTokensLowered;
    }
  | {
      ok: false;
      kind: ModelErrorKind;
      /** Human-readable: what failed, with the status code and server message when known. */
      message: string;
      status?: number;
      tries: number;
      /** The model's context window, when the server's error named it. */
      contextLength?: number;
    };

/** Every model client. `query` never throws for request failures: they come back as `ok: false`. */
export interface Model {
  /** e.g. `openai/qwen3-coder`, `anthropic/claude-sonnet-4-5`, `replay:file.traj.json`, `scripted`. */
  readonly name: string;
  /** Whether image content parts may be sent. */
  readonly vision: boolean;
  query(request: ModelRequest): Promise<ModelResult>;
}
