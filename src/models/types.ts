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
  extra?: Record<string, unknown>;
}

/** A tool as offered to a model: JSON Schema parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelRequest {
  messages: ChatMessage[];
  /** Present for the tool_calls protocol only. */
  tools?: ToolSpec[];
  signal?: AbortSignal;
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
      attempts: number;
    }
  | {
      ok: false;
      kind: ModelErrorKind;
      /** Human-readable: what failed, with the status code and server message when known. */
      message: string;
      status?: number;
      attempts: number;
    };

/** Every model client. `query` never throws for request failures: they come back as `ok: false`. */
export interface Model {
  /** e.g. `openai/qwen3-coder`, `anthropic/claude-sonnet-4-5`, `replay:file.traj.json`, `scripted`. */
  readonly name: string;
  /** Whether image content parts may be sent. */
  readonly vision: boolean;
  query(request: ModelRequest): Promise<ModelResult>;
}
