import { createHistoryPolicy } from "../agent/history/mask.js";
import { contentText } from "../agent/history/sent-message.js";
import type { HistoryConfig } from "../config/schema.js";
import type { TrajectoryView } from "../inspect/view/view-model.js";
import type { ChatMessage } from "../models/types.js";
import { BlockCache } from "./block-cache.js";
import type { Tokenizer } from "./tokenizers.js";

/** What one trajectory's requests would cost under a history policy (`patchloop tokens`). */
export interface ReplayFigures {
  requests: number;
  /** Prompt tokens summed over the requests (what a server without a prefix cache prefills). */
  prompt_tokens: number;
  /** Tokens a block prefix cache would still have to prefill (block-cache.ts). */
  prefill_tokens: number;
  /** The longest prompt. */
  largest_prompt: number;
  /** Requests whose messages begin with the whole previous request, of the requests after the first. */
  append_only_requests: number;
  later_requests: number;
  /** Requests at which the policy changed earlier messages. */
  block_steps: number;
}

/**
 * The chat messages of a trajectory as the viewer's normalised form has them (one reader for every
 * format, src/inspect/normalize.ts): system, task, any preamble, then per step the reply (its
 * reasoning, prose and actions as text) and its observations (`tool` messages when the step's
 * actions were tool calls, else `user`), with the step and return code in `extra` as the loop
 * records them.
 */
export function chatOf(view: TrajectoryView): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (view.system) out.push({ role: "system", content: view.system.text });
  if (view.firstUser) out.push({ role: "user", content: view.firstUser.text });
  for (const p of view.preamble)
    out.push({
      role: p.role === "assistant" ? "assistant" : p.role === "system" ? "system" : "user",
      content: p.text,
    });
  for (const s of view.steps) {
    const text = [s.reasoning, s.thought, ...s.actions.map((a) => (a.tool ? `${a.tool}\n${a.text}` : a.text))]
      .filter((t) => t)
      .join("\n");
    out.push({ role: "assistant", content: text, extra: { step: s.index } });
    const tool = s.actions.some((a) => a.tool !== null);
    for (const o of s.observations)
      out.push({
        role: tool && !o.formatError ? "tool" : "user",
        content: o.text,
        extra: { step: s.index, ...(o.returncode !== null ? { returncode: o.returncode } : {}) },
      });
  }
  return out;
}

/** How a replay lays out and counts the requests. */
export interface ReplayOptions {
  history: HistoryConfig;
  /** `agent.context_limit` (the policy's threshold is a fraction of it). */
  contextLimit: number;
  tokenizer: Tokenizer;
}

/**
 * Replays a trajectory's requests under a history policy without a model: request k holds the
 * messages recorded before the k-th reply, laid out by the policy as the loop would (its threshold
 * sees the previous request's count here), counted with the tokenizer and fed to a block prefix
 * cache (block-cache.ts) of each size in `caches` (tokens it holds; `undefined`: no bound). One
 * figure set per cache: the requests are laid out and counted once.
 */
export function replay(
  view: TrajectoryView,
  o: ReplayOptions,
  caches: Array<number | undefined>,
): ReplayFigures[] {
  const { tokenizer } = o;
  const chat = chatOf(view);
  const policy = createHistoryPolicy(o.history, o.contextLimit);
  const blockCaches = caches.map((c) => new BlockCache(c));
  const tokens = new WeakMap<ChatMessage, number[]>();
  const tokensOf = (m: ChatMessage) => {
    let t = tokens.get(m);
    if (!t) {
      t = tokenizer.message(m.role, contentText(m));
      tokens.set(m, t);
    }
    return t;
  };
  const f: ReplayFigures = {
    requests: 0,
    prompt_tokens: 0,
    prefill_tokens: 0,
    largest_prompt: 0,
    append_only_requests: 0,
    later_requests: 0,
    block_steps: 0,
  };
  const prefill = caches.map(() => 0);
  let last = 0;
  for (let i = 0; i < chat.length; i++) {
    if (chat[i].role !== "assistant" || chat[i].extra?.step === undefined) continue;
    const view = policy.view(chat.slice(0, i), { step: f.requests + 1, lastPromptTokens: last });
    let tokensNow = 0;
    blockCaches.forEach((cache, c) => {
      const r = cache.prompt(view.messages, tokensOf);
      tokensNow = r.tokens;
      prefill[c] += r.prefill;
    });
    f.requests++;
    f.prompt_tokens += tokensNow;
    f.largest_prompt = Math.max(f.largest_prompt, tokensNow);
    if (f.requests > 1) f.later_requests++;
    if (view.previousMessages > 0 && view.sharedMessages === view.previousMessages) f.append_only_requests++;
    if (view.maskedNow) f.block_steps++;
    last = tokensNow;
  }
  return prefill.map((p) => ({ ...f, prefill_tokens: p }));
}
