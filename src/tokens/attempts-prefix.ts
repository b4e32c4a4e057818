import { contentText } from "../agent/history/sent-message.js";
import type { TrajectoryView } from "../inspect/view/view-model.js";
import type { ChatMessage } from "../models/types.js";
import { BlockCache } from "./block-cache.js";
import { chatOf } from "./replay.js";
import type { Tokenizer } from "./tokenizers.js";

/** How the first requests of one instance's attempts share a server's prefix cache. */
export interface AttemptsPrefix {
  /** The instance's folder (`DIR/<id>`). */
  instance: string;
  /** Attempt numbers, in the order fed. */
  attempts: number[];
  /** Tokens of each attempt's first request. */
  first_request_tokens: number[];
  /** Tokens each attempt's first request prefills, fed in attempt order through one block prefix cache. */
  first_request_prefill: number[];
  /** The largest prefill of attempts 2..N as a fraction of attempt 1's; null with one attempt. */
  later_over_first: number | null;
}

/** The trajectory files that are attempts (`.../<id>/attempt-<k>/<id>.traj.json`), by instance folder. */
export function attemptGroups(files: string[]): Map<string, Array<{ file: string; attempt: number }>> {
  const groups = new Map<string, Array<{ file: string; attempt: number }>>();
  for (const file of files) {
    const m = /^(.*)\/attempt-([1-9][0-9]*)\/[^/]+$/.exec(file);
    if (!m) continue;
    const list = groups.get(m[1]) ?? [];
    list.push({ file, attempt: Number(m[2]) });
    groups.set(m[1], list);
  }
  for (const list of groups.values()) list.sort((a, b) => a.attempt - b.attempt);
  return groups;
}

/**
 * Feeds the first request of each attempt (system message, task, anything before the first
 * reply), in attempt order, through one unbounded block prefix cache, as a server sees them when
 * the batch starts attempts 2..N after attempt 1's first reply (docs/attempts.md).
 */
export function attemptsPrefix(
  instance: string,
  views: Array<{ attempt: number; view: TrajectoryView }>,
  tokenizer: Tokenizer,
): AttemptsPrefix {
  const cache = new BlockCache();
  const tokens = (m: ChatMessage) => tokenizer.message(m.role, contentText(m));
  const sizes: number[] = [];
  const prefill: number[] = [];
  for (const { view } of views) {
    const chat = chatOf(view);
    const end = chat.findIndex((m) => m.role === "assistant");
    const r = cache.prompt(end < 0 ? chat : chat.slice(0, end), tokens);
    sizes.push(r.tokens);
    prefill.push(r.prefill);
  }
  const later = prefill.slice(1);
  return {
    instance,
    attempts: views.map((v) => v.attempt),
    first_request_tokens: sizes,
    first_request_prefill: prefill,
    later_over_first: later.length === 0 || prefill[0] === 0 ? null : Math.max(...later) / prefill[0],
  };
}
