import { createHash } from "node:crypto";

/** Tokens of one block of a server's KV cache (vLLM's default block size). */
export const BLOCK_TOKENS = 16;

/**
 * The chain after some tokens: the hashes of its full blocks (the first `length` of `hashes`, an
 * array shared with the chains that continue it) and the tokens after the last full block.
 */
interface Chain {
  hashes: string[];
  length: number;
  pending: number[];
  tokens: number;
}

const start = (): Chain => ({ hashes: [], length: 0, pending: [], tokens: 0 });

function blockHash(prev: string, block: number[]): string {
  return createHash("sha1")
    .update(prev)
    .update(new Uint8Array(new Uint32Array(block).buffer))
    .digest("base64");
}

/**
 * A block prefix cache, as vLLM's automatic prefix caching works: a prompt is cut into blocks of
 * 16 tokens, each named by a hash chained from the start (a block matches only when every token
 * before it matches too), and a request reuses its leading blocks that are still cached; the rest
 * is prefilled. `capacityTokens` bounds what the cache holds (default: no bound, the best case for
 * an ever-growing history); past it, the blocks used longest ago go first and, among blocks last
 * used by the same request, the later ones first (vLLM's eviction order), so a prompt longer than
 * the cache keeps its beginning. A prompt is fed as segments (messages): the chain after each
 * segment of the previous prompt is kept, so shared segments are not hashed again.
 */
export class BlockCache {
  /** Cached blocks and the request that last used each. */
  private readonly cached = new Map<string, number>();
  /** Each request still holding blocks: its number and its blocks in prompt order. */
  private readonly history: Array<{ request: number; blocks: string[] }> = [];
  private request = 0;
  private prevSegments: unknown[] = [];
  private prevChains: Chain[] = [];

  constructor(private readonly capacityTokens = Number.POSITIVE_INFINITY) {}

  private extend(chain: Chain, tokens: number[]): Chain {
    // continue the shared array in place unless another chain already continued it differently
    const hashes = chain.hashes.length === chain.length ? chain.hashes : chain.hashes.slice(0, chain.length);
    const pending = chain.pending.concat(tokens);
    let at = 0;
    for (; at + BLOCK_TOKENS <= pending.length; at += BLOCK_TOKENS)
      hashes.push(blockHash(hashes.at(-1) ?? "", pending.slice(at, at + BLOCK_TOKENS)));
    return {
      hashes,
      length: hashes.length,
      pending: pending.slice(at),
      tokens: chain.tokens + tokens.length,
    };
  }

  private evict(): void {
    const max = Math.floor(this.capacityTokens / BLOCK_TOKENS);
    while (this.cached.size > max && this.history.length > 0) {
      const oldest = this.history[0];
      for (let i = oldest.blocks.length - 1; i >= 0 && this.cached.size > max; i--)
        if (this.cached.get(oldest.blocks[i]) === oldest.request) this.cached.delete(oldest.blocks[i]);
      if (this.cached.size > max) this.history.shift();
      else {
        // keep what is left of this request's blocks for the next eviction
        oldest.blocks = oldest.blocks.filter((b) => this.cached.get(b) === oldest.request);
      }
    }
  }

  /**
   * Feeds one prompt as `segments` (each with a stable identity: the same object for the same
   * message) whose tokens `tokensOf` gives; returns its length and how many tokens must be
   * prefilled (all but its leading cached blocks).
   */
  prompt<S>(segments: S[], tokensOf: (s: S) => number[]): { tokens: number; prefill: number } {
    let shared = 0;
    while (
      shared < segments.length &&
      shared < this.prevSegments.length &&
      segments[shared] === this.prevSegments[shared]
    )
      shared++;
    const chains = this.prevChains.slice(0, shared);
    let chain = shared > 0 ? chains[shared - 1] : start();
    for (let i = shared; i < segments.length; i++) {
      chain = this.extend(chain, tokensOf(segments[i]));
      chains.push(chain);
    }
    this.prevSegments = segments;
    this.prevChains = chains;
    const blocks = chain.hashes.slice(0, chain.length);
    let hits = 0;
    while (hits < blocks.length && this.cached.has(blocks[hits])) hits++;
    const request = ++this.request;
    for (const b of blocks) this.cached.set(b, request);
    this.history.push({ request, blocks });
    if (Number.isFinite(this.capacityTokens)) this.evict();
    else if (this.history.length > 1) this.history.shift(); // nothing is ever evicted: keep no history
    return { tokens: chain.tokens, prefill: chain.tokens - hits * BLOCK_TOKENS };
  }
}
