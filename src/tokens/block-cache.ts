import { createHash } from "node:crypto";

/** Tokens of one block of a server's KV cache (vLLM's default block size). */
export const BLOCK_TOKENS = 16;

/** The chain state after some tokens: the hash of the last full block and the tokens after it. */
interface ChainState {
  hash: string;
  pending: number[];
  /** Leading full blocks so far that were already cached. */
  hits: number;
  /** Whether every full block so far was cached (the first miss ends the reusable prefix). */
  hitting: boolean;
  tokens: number;
}

const START: ChainState = { hash: "", pending: [], hits: 0, hitting: true, tokens: 0 };

/**
 * A block prefix cache, as vLLM's automatic prefix caching works: a prompt is cut into blocks of
 * 16 tokens, each block named by a hash chained from the start (so a block matches only when every
 * token before it matches too), and a request reuses its leading blocks that an earlier request
 * computed; the rest is prefilled. The cache here never evicts (the best case for `full`: a server
 * with room for every block). A prompt is fed as segments (messages); the state after each
 * segment of the previous prompt is kept, so a prompt that shares segments with the previous one
 * costs only its new tokens to count.
 */
export class BlockCache {
  private readonly seen = new Set<string>();
  private prevSegments: unknown[] = [];
  private prevStates: ChainState[] = [];

  private extend(state: ChainState, tokens: number[]): ChainState {
    let { hash, hits, hitting } = state;
    let pending = state.pending;
    let i = 0;
    if (pending.length > 0) {
      const need = BLOCK_TOKENS - pending.length;
      if (tokens.length < need)
        return { ...state, pending: [...pending, ...tokens], tokens: state.tokens + tokens.length };
      const block = [...pending, ...tokens.slice(0, need)];
      ({ hash, hitting, hits } = this.block(hash, block, hitting, hits));
      i = need;
      pending = [];
    }
    for (; i + BLOCK_TOKENS <= tokens.length; i += BLOCK_TOKENS)
      ({ hash, hitting, hits } = this.block(hash, tokens.slice(i, i + BLOCK_TOKENS), hitting, hits));
    return {
      hash,
      pending: [...pending, ...tokens.slice(i)],
      hits,
      hitting,
      tokens: state.tokens + tokens.length,
    };
  }

  private block(prev: string, block: number[], hitting: boolean, hits: number) {
    const hash = createHash("sha1")
      .update(prev)
      .update(new Uint8Array(new Uint32Array(block).buffer))
      .digest("base64");
    const cached = this.seen.has(hash);
    if (!cached) this.seen.add(hash);
    const still = hitting && cached;
    return { hash, hitting: still, hits: still ? hits + 1 : hits };
  }

  /**
   * Feeds one prompt as `segments` (each with a stable identity: the same object for the same
   * message) whose tokens `tokensOf` gives; returns its length and how many tokens must be
   * prefilled (all but the leading cached blocks).
   */
  prompt<S>(segments: S[], tokensOf: (s: S) => number[]): { tokens: number; prefill: number } {
    let shared = 0;
    while (
      shared < segments.length &&
      shared < this.prevSegments.length &&
      segments[shared] === this.prevSegments[shared]
    )
      shared++;
    const states: ChainState[] = this.prevStates.slice(0, shared);
    let state = shared > 0 ? states[shared - 1] : START;
    // blocks the shared segments hold were computed for the previous prompt: still cached
    state = {
      ...state,
      hits: Math.floor((state.tokens - state.pending.length) / BLOCK_TOKENS),
      hitting: true,
    };
    if (shared > 0) states[shared - 1] = state;
    for (let i = shared; i < segments.length; i++) {
      state = this.extend(state, tokensOf(segments[i]));
      states.push(state);
    }
    this.prevSegments = segments;
    this.prevStates = states;
    return { tokens: state.tokens, prefill: state.tokens - state.hits * BLOCK_TOKENS };
  }
}
