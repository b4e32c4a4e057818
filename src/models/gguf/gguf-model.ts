import type { Token } from "node-llama-cpp";
import type { ModelConfig } from "../../config/schema.js";
import type { ChatMessage, Model, ModelRequest, ModelResult, ToolCall } from "../types.js";
import { loadMemoryOf } from "./load-bounds.js";
import { PromptRenderer } from "./prompt.js";
import { loadRuntime, type Runtime, type RuntimeSettings } from "./runtime.js";
import { type Sampling, samplingOf } from "./sampling.js";
import { toolCallGbnf } from "./tool-grammar.js";

/** What a reply of the embedded model records as its raw body (the trajectory's `extra.raw`). */
export interface GgufRaw {
  text: string;
  prompt_tokens: number;
  /** Tokens of the prompt evaluated for this call (the rest was still in the sequence). */
  evaluated_tokens: number;
  completion_tokens: number;
  finish_reason: "stop" | "length";
  grammar: "fenced" | "tool_call" | null;
}

/**
 * A GGUF model run in this process by node-llama-cpp (`gguf:PATH`). The prompt is the model's own
 * chat template over the messages; the reply is constrained by a GBNF grammar of the protocol's
 * action format (the fenced block, or one JSON call of a known tool), so no server is needed to
 * enforce it. Each query borrows a sequence of the one shared context, keeps the prefix of the
 * prompt still held there and evaluates only the rest. Costs nothing; failures come back as data.
 */
export function createGgufModel(config: ModelConfig, path: string, parallel: number): Model {
  const sampling = samplingOf(config.model_kwargs);
  const settings: RuntimeSettings = {
    path,
    contextSize: config.gguf.context_size,
    threads: config.gguf.threads,
    gpuLayers: config.gguf.gpu_layers,
    sequences: config.gguf.sequences ?? Math.max(1, Math.floor(parallel)),
    loadTimeout: config.gguf.load_timeout,
    loadMemory: loadMemoryOf(config.gguf.load_memory_gib),
  };
  return new GgufModel(`gguf:${path}`, settings, sampling, config.reasoning_history === "keep");
}

class GgufModel implements Model {
  readonly vision = false;
  private calls = 0;
  private renderer: PromptRenderer | null = null;

  constructor(
    readonly name: string,
    private readonly settings: RuntimeSettings,
    private readonly sampling: Sampling,
    private readonly keepReasoning: boolean,
  ) {}

  async query(request: ModelRequest): Promise<ModelResult> {
    const fail = (kind: "fatal" | "aborted" | "context_exceeded", message: string, contextLength?: number) =>
      ({ ok: false, kind, message, tries: 1, ...(contextLength ? { contextLength } : {}) }) as const;
    let rt: Runtime;
    try {
      rt = await loadRuntime(this.settings, request.signal);
    } catch (e) {
      if (request.signal?.aborted) return fail("aborted", "the call was aborted while the model loaded");
      return fail("fatal", (e as Error).message);
    }
    if (request.signal?.aborted) return fail("aborted", "the call was aborted before it started");
    let prompt: Token[];
    let format: ActionGrammar | null;
    try {
      prompt = rt.model.tokenize(this.render(rt, request), true);
      format = grammarOf(request);
    } catch (e) {
      return fail(
        "fatal",
        `the prompt could not be made with the model's chat template: ${(e as Error).message}`,
      );
    }
    if (prompt.length === 0)
      return fail(
        "fatal",
        `the chat template of ${this.name} made an empty prompt from ${request.messages.length} messages`,
      );
    if (prompt.length >= rt.contextSize)
      return fail(
        "context_exceeded",
        `the prompt has ${prompt.length} tokens, and the context of ${this.name} holds ${rt.contextSize} (model.gguf.context_size: raise it, up to the model's ${rt.model.trainContextSize})`,
        rt.contextSize,
      );
    const room = rt.contextSize - prompt.length;
    const maxTokens = Math.min(this.sampling.maxTokens ?? room, room);
    let lease: Awaited<ReturnType<typeof rt.pool.acquire>>;
    try {
      lease = await rt.pool.acquire(this, request.signal);
    } catch {
      return fail("aborted", "the call was aborted while it waited for a free sequence");
    }
    try {
      const grammar = format === null ? null : await rt.grammar(format.gbnf);
      const seq = lease.sequence;
      // Keep what the sequence already holds of this prompt; at least one token is evaluated anew for its logits.
      const kept = Math.min(seq.compareContextTokens(prompt).firstDifferentIndex, prompt.length - 1);
      if (kept < seq.nextTokenIndex)
        await seq.eraseContextTokenRanges([{ start: kept, end: seq.nextTokenIndex }]);
      const out: Token[] = [];
      let finish: GgufRaw["finish_reason"] = "stop";
      const s = this.sampling;
      const tokens = seq.evaluate(prompt.slice(kept), {
        ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
        ...(s.topP !== undefined ? { topP: s.topP } : {}),
        ...(s.topK !== undefined ? { topK: s.topK } : {}),
        ...(s.minP !== undefined ? { minP: s.minP } : {}),
        ...(s.seed !== undefined ? { seed: s.seed } : {}),
        ...(grammar ? { grammarEvaluationState: rt.grammarState(grammar) } : {}),
      });
      for await (const token of tokens) {
        if (request.signal?.aborted) {
          await tokens.return();
          return fail("aborted", "the call was aborted while the model was writing");
        }
        out.push(token);
        if (out.length >= maxTokens) {
          finish = "length";
          break;
        }
      }
      const text = rt.model.detokenize(out);
      this.calls++;
      const message = replyMessage(text, format?.kind === "tool_call", this.calls);
      const raw: GgufRaw = {
        text,
        prompt_tokens: prompt.length,
        evaluated_tokens: prompt.length - kept,
        completion_tokens: out.length,
        finish_reason: finish,
        grammar: format?.kind ?? null,
      };
      return {
        ok: true,
        message,
        finishReason: message.tool_calls ? "tool_calls" : finish,
        usage: { prompt_tokens: prompt.length, completion_tokens: out.length, cached_tokens: kept },
        cost: 0,
        raw,
        tries: 1,
        contextLength: rt.contextSize,
      };
    } catch (e) {
      return fail("fatal", `node-llama-cpp failed while evaluating ${this.name}: ${(e as Error).message}`);
    } finally {
      lease.release();
    }
  }

  private render(rt: Runtime, request: ModelRequest): string {
    this.renderer ??= new PromptRenderer({
      template: rt.chatTemplate,
      bosToken: tokenText(rt, rt.model.tokens.bos),
      eosToken: tokenText(rt, rt.model.tokens.eos),
      kwargs: this.sampling.templateKwargs,
      keepReasoning: this.keepReasoning,
    });
    return this.renderer.render(request.messages, request.tools);
  }
}

function tokenText(rt: Runtime, token: Token | null): string {
  return token === null ? "" : rt.model.detokenize([token], true);
}

/** The GBNF grammar of an action format. */
interface ActionGrammar {
  kind: "fenced" | "tool_call";
  gbnf: string;
}

/** The grammar of the request's action format; null when it has none (a `model.action_regex` format). */
function grammarOf(request: ModelRequest): ActionGrammar | null {
  const c = request.constraint;
  if (!c) return null;
  if (c.kind === "fenced") return { kind: "fenced", gbnf: c.gbnf };
  if (!request.tools || request.tools.length === 0) return null;
  return { kind: "tool_call", gbnf: toolCallGbnf(request.tools) };
}

/**
 * The assistant message of a reply: with a tool-call grammar, its JSON as one tool call (a reply cut
 * short by max_tokens is not JSON and stays text, which the protocol reports as a format error).
 */
function replyMessage(text: string, toolCall: boolean, call: number): ChatMessage {
  if (!toolCall) return { role: "assistant", content: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { role: "assistant", content: text };
  }
  const p = parsed as { name?: unknown; arguments?: unknown };
  if (typeof p?.name !== "string") return { role: "assistant", content: text };
  const tc: ToolCall = {
    id: `call_${call}`,
    type: "function",
    function: { name: p.name, arguments: JSON.stringify(p.arguments ?? {}) },
  };
  return { role: "assistant", content: null, tool_calls: [tc] };
}
