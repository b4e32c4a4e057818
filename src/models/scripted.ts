import type {
  ChatMessage,
  Model,
  ModelErrorKind,
  ModelRequest,
  ModelResult,
  ToolCall,
  ToolSpec,
  Usage,
} from "./types.js";

/** A reply the scripted model gives. `finishReason` defaults to `tool_calls` / `stop`. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: Array<{ name: string; arguments: string | object; id?: string }>;
  finishReason?: string;
  /** The call's usage; unsaid token counts are 0. */
  usage?: Partial<Usage>;
  cost?: number;
}

/** A failed query the scripted model reports (`ok: false`). */
export interface ScriptedError {
  error: ModelErrorKind;
  message?: string;
}

/** One step of the script: a reply, an error, or a function of the request giving either. */
export type ScriptedResponse =
  | ScriptedReply
  | ScriptedError
  | ((request: ModelRequest) => ScriptedReply | ScriptedError);

/** A request as recorded: a deep copy taken when it arrived (later changes by the caller do not show). */
export interface RecordedModelRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
}

function describe(response: ScriptedResponse): string {
  if (typeof response === "function") return "(function)";
  const text = JSON.stringify(response);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function lastMessageText(messages: ChatMessage[]): string {
  const last = messages[messages.length - 1];
  if (!last) return "(no messages)";
  const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  return `(${last.role}) ${text.length > 500 ? `${text.slice(0, 500)}...` : text}`;
}

/**
 * The stand-in model for tests: answers with the scripted responses in order and records every
 * request in `calls`. Unlike real models it throws, on purpose, when called more often than
 * scripted, so that a test cannot pass by accident; `assertAllUsed()` throws when steps are left.
 */
export class ScriptedModel implements Model {
  readonly name = "scripted";
  readonly vision: boolean;
  readonly calls: RecordedModelRequest[] = [];
  private readonly responses: ScriptedResponse[];

  constructor(responses: ScriptedResponse[], opts: { vision?: boolean } = {}) {
    this.responses = [...responses];
    this.vision = opts.vision ?? false;
  }

  async query(request: ModelRequest): Promise<ModelResult> {
    const index = this.calls.length;
    const recorded: RecordedModelRequest = { messages: structuredClone(request.messages) };
    if (request.tools) recorded.tools = structuredClone(request.tools);
    this.calls.push(recorded);
    const step = this.responses[index];
    if (step === undefined) {
      throw new Error(
        `ScriptedModel: call ${index + 1} but only ${this.responses.length} responses were scripted; ` +
          `last message received: ${lastMessageText(request.messages)}`,
      );
    }
    const response = typeof step === "function" ? step(request) : step;
    if ("error" in response) {
      const message = response.message ?? `scripted ${response.error} error`;
      return { ok: false, kind: response.error, message, tries: 1 };
    }
    const toolCalls: ToolCall[] = (response.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${index + 1}_${i + 1}`,
      type: "function",
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const message: ChatMessage = { role: "assistant", content: response.content ?? null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return {
      ok: true,
      message,
      finishReason: response.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      usage: { prompt_tokens: 0, completion_tokens: 0, ...response.usage },
      cost: response.cost ?? 0,
      raw: { scripted: index + 1 },
      tries: 1,
    };
  }

  /** Throws listing the responses that were never asked for. */
  assertAllUsed(): void {
    const unused = this.responses.slice(this.calls.length);
    if (unused.length === 0) return;
    const list = unused.map((r, i) => `#${this.calls.length + i + 1} ${describe(r)}`).join("; ");
    throw new Error(
      `ScriptedModel: ${unused.length} of ${this.responses.length} scripted responses were not used: ${list}`,
    );
  }
}
