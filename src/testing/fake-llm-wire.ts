/**
 * Response bodies of the fake LLM server in each vendor's wire format (OpenAI chat completions,
 * the Responses API, Anthropic Messages), built from one vendor-neutral description of a reply.
 */

import type { Usage } from "../models/types.js";

/** A tool call the fake model makes. `arguments` as a JSON string or an object (serialized for OpenAI). */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** What the fake model answers. Fields absent from the wire format are simply not sent. */
export interface FakeReplySpec {
  /** Assistant text; `null` sends no text (OpenAI `content: null`, no Anthropic text block). */
  content?: string | null;
  toolCalls?: FakeToolCall[];
  /**
   * Sent verbatim as OpenAI `finish_reason` / Anthropic `stop_reason`. Default: `tool_calls` /
   * `tool_use` when there are tool calls, else `stop` / `end_turn`.
   */
  finishReason?: string;
  /**
   * What the server reports of the call, in each wire's own fields (unsaid counts are 0):
   * `reasoning_tokens` as OpenAI's `completion_tokens_details` and the Responses API's
   * `output_tokens_details`, `cached_tokens` as `prompt_tokens_details` / `input_tokens_details`.
   */
  usage?: Partial<Usage>;
  /** The `model` field of the response (default `fake-model`). */
  model?: string;
  /**
   * The model's thinking, sent where the server's flavor puts it (`reasoning`, `reasoning_content`,
   * `<think>` in the content; fake-llm-flavor.ts). Anthropic: a `thinking` block.
   */
  reasoning?: string;
}

/** Where an OpenAI-wire reply carries `reasoning`; null drops it (a server without reasoning output). */
export type ReasoningPlacement = "reasoning" | "reasoning_content" | "think" | null;

/** Which API a request was made to, from its path. */
export type Wire = "openai" | "responses" | "anthropic";

function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

function argumentsObject(args: string | Record<string, unknown>): unknown {
  return typeof args === "string" ? JSON.parse(args) : args;
}

/** An OpenAI `chat.completion` object. */
export function openaiCompletionBody(
  spec: FakeReplySpec,
  seq: number,
  placement: ReasoningPlacement = "reasoning_content",
): Record<string, unknown> {
  const calls = spec.toolCalls ?? [];
  const message: Record<string, unknown> = {
    role: "assistant",
    content: spec.content === undefined ? (calls.length > 0 ? null : "") : spec.content,
  };
  if (spec.reasoning !== undefined && placement === "think")
    message.content = `<think>\n${spec.reasoning}\n</think>\n\n${message.content ?? ""}`;
  else if (spec.reasoning !== undefined && placement !== null) message[placement] = spec.reasoning;
  if (calls.length > 0) {
    message.tool_calls = calls.map((c, i) => ({
      id: c.id ?? `call_fake_${seq}_${i}`,
      type: "function",
      function: { name: c.name, arguments: argumentsText(c.arguments) },
    }));
  }
  const prompt = spec.usage?.prompt_tokens ?? 0;
  const completion = spec.usage?.completion_tokens ?? 0;
  return {
    id: `chatcmpl-fake-${seq}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: spec.model ?? "fake-model",
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: spec.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(spec.usage?.reasoning_tokens !== undefined
        ? { completion_tokens_details: { reasoning_tokens: spec.usage.reasoning_tokens } }
        : {}),
      ...(spec.usage?.cached_tokens !== undefined
        ? { prompt_tokens_details: { cached_tokens: spec.usage.cached_tokens } }
        : {}),
    },
  };
}

/**
 * A Responses API `response` object as vLLM returns it for gpt-oss: a `reasoning` item (the
 * analysis channel), a `message` with `output_text` (the final channel), a `function_call` item
 * per tool call. `finishReason: "length"` is a response cut at `max_output_tokens`.
 */
export function responsesBody(spec: FakeReplySpec, seq: number): Record<string, unknown> {
  const output: Record<string, unknown>[] = [];
  if (spec.reasoning !== undefined)
    output.push({
      id: `rs_fake_${seq}`,
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: spec.reasoning }],
    });
  if (typeof spec.content === "string")
    output.push({
      id: `msg_fake_${seq}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: spec.content, annotations: [] }],
    });
  (spec.toolCalls ?? []).forEach((c, i) => {
    output.push({
      id: `fc_fake_${seq}_${i}`,
      type: "function_call",
      call_id: c.id ?? `call_fake_${seq}_${i}`,
      name: c.name,
      arguments: argumentsText(c.arguments),
      status: "completed",
    });
  });
  const cut = spec.finishReason === "length";
  const input = spec.usage?.prompt_tokens ?? 0;
  const out = spec.usage?.completion_tokens ?? 0;
  return {
    id: `resp_fake_${seq}`,
    object: "response",
    created_at: 1_700_000_000,
    model: spec.model ?? "fake-model",
    status: cut ? "incomplete" : "completed",
    incomplete_details: cut ? { reason: "max_output_tokens" } : null,
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: spec.usage?.cached_tokens ?? 0 },
      output_tokens: out,
      output_tokens_details: { reasoning_tokens: spec.usage?.reasoning_tokens ?? 0 },
      total_tokens: input + out,
    },
  };
}

/** Fields each Responses API input item type requires (openai-python's `*Param` types, which vLLM validates). */
const REQUIRED_INPUT_FIELDS: Record<string, string[]> = {
  message: ["role", "content"],
  reasoning: ["id", "summary"],
  function_call: ["call_id", "name", "arguments"],
  function_call_output: ["call_id", "output"],
};

/** Why a Responses request's `input` would be refused (a missing list, an unknown item, a required field missing), or null. */
export function responsesInputProblem(body: unknown): string | null {
  const input = (body as { input?: unknown } | null)?.input;
  if (typeof input === "string") return null;
  if (!Array.isArray(input)) return "input must be a string or a list of items";
  for (const [i, raw] of input.entries()) {
    const item = raw as Record<string, unknown>;
    const type = typeof item?.type === "string" ? item.type : "message";
    const required = REQUIRED_INPUT_FIELDS[type];
    if (!required) return `input[${i}]: unknown item type ${JSON.stringify(type)}`;
    const missing = required.filter((f) => item[f] === undefined);
    if (missing.length > 0) return `input[${i}] (${type}) lacks ${missing.join(", ")}`;
  }
  return null;
}

/** An Anthropic `message` object. */
export function anthropicMessageBody(spec: FakeReplySpec, seq: number): Record<string, unknown> {
  const calls = spec.toolCalls ?? [];
  const content: Record<string, unknown>[] = [];
  if (spec.reasoning !== undefined)
    content.push({ type: "thinking", thinking: spec.reasoning, signature: `sig-fake-${seq}` });
  if (typeof spec.content === "string") content.push({ type: "text", text: spec.content });
  calls.forEach((c, i) => {
    content.push({
      type: "tool_use",
      id: c.id ?? `toolu_fake_${seq}_${i}`,
      name: c.name,
      input: argumentsObject(c.arguments),
    });
  });
  return {
    id: `msg_fake_${seq}`,
    type: "message",
    role: "assistant",
    model: spec.model ?? "fake-model",
    content,
    stop_reason: spec.finishReason ?? (calls.length > 0 ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: spec.usage?.prompt_tokens ?? 0,
      output_tokens: spec.usage?.completion_tokens ?? 0,
    },
  };
}

/** The reply body for `wire`. */
export function replyBody(
  wire: Wire,
  spec: FakeReplySpec,
  seq: number,
  placement: ReasoningPlacement = "reasoning_content",
): Record<string, unknown> {
  if (wire === "responses") return responsesBody(spec, seq);
  return wire === "openai" ? openaiCompletionBody(spec, seq, placement) : anthropicMessageBody(spec, seq);
}
