import { writeFileAtomic } from "./atomic-write.js";

/**
 * One file rewritten (atomically) whenever its state changes, by one writer at a time. Calls
 * made while a write is waiting to start share that write; the text is rendered when the write
 * starts, so it holds every change made before. Many workers finishing at once cost one or two
 * writes, not one each, and an older state never replaces a newer one.
 */
export class CoalescingWriter {
  private current: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(
    readonly path: string,
    private readonly render: () => string,
  ) {}

  /** Resolves once a write holding the state as it is now has reached the disk (renamed into place). */
  write(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.current
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return writeFileAtomic(this.path, this.render());
      });
    this.queued = next;
    this.current = next;
    return next;
  }
}
