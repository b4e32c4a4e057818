/** A sequence lent to one query; `release` hands it back (once). */
export interface Lease<S> {
  sequence: S;
  release(): void;
}

/**
 * The sequences of one context, lent one query at a time. A task (its model client, the `owner`)
 * gets back the sequence it used last when that one is free, so its prompt's prefix is still
 * evaluated there; otherwise the free sequence used longest ago. When all are lent, callers wait in
 * order of arrival (an aborted wait rejects with the signal's reason).
 */
export class SequencePool<S> {
  private readonly free: Set<S>;
  private readonly lastOwner = new Map<S, object>();
  private readonly lastUse = new Map<S, number>();
  private readonly lastSequence = new WeakMap<object, S>();
  private readonly waiting: Array<{ owner: object; give: (s: S) => void }> = [];
  private clock = 0;

  constructor(readonly sequences: readonly S[]) {
    if (sequences.length === 0) throw new Error("a sequence pool needs at least one sequence");
    this.free = new Set(sequences);
  }

  /** Sequences not lent now. */
  get available(): number {
    return this.free.size;
  }

  acquire(owner: object, signal?: AbortSignal): Promise<Lease<S>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.pick(owner);
    if (now !== undefined) return Promise.resolve(this.lend(now, owner));
    return new Promise((resolve, reject) => {
      const entry = {
        owner,
        give: (s: S) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.lend(s, owner));
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Whether `sequence` last served `owner` (its tokens are that owner's). */
  servedLast(sequence: S, owner: object): boolean {
    return this.lastOwner.get(sequence) === owner;
  }

  private pick(owner: object): S | undefined {
    const own = this.lastSequence.get(owner);
    if (own !== undefined && this.free.has(own) && this.lastOwner.get(own) === owner) return own;
    let best: S | undefined;
    for (const s of this.free)
      if (best === undefined || (this.lastUse.get(s) ?? -1) < (this.lastUse.get(best) ?? -1)) best = s;
    return best;
  }

  private lend(sequence: S, owner: object): Lease<S> {
    this.free.delete(sequence);
    this.lastOwner.set(sequence, owner);
    this.lastSequence.set(owner, sequence);
    this.lastUse.set(sequence, this.clock++);
    let released = false;
    return {
      sequence,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next) next.give(sequence);
        else this.free.add(sequence);
      },
    };
  }
}
