/**
 * Collects a command's output as text up to `limit` characters, keeping the head and the tail and
 * counting what was dropped between them, so a command that prints without end cannot exhaust memory.
 */
export class TextCapture {
  private head = "";
  private tail = "";
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: string): void {
    const half = Math.floor(this.limit / 2);
    let rest = chunk;
    if (this.head.length < half && this.dropped === 0 && this.tail === "") {
      const take = half - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
    }
    if (rest === "") return;
    this.tail += rest;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  /** Removes the last `count` characters (they must lie in the kept tail, which holds the newest text). */
  dropEnd(count: number): void {
    if (this.tail.length >= count) this.tail = this.tail.slice(0, this.tail.length - count);
    else {
      this.head = this.head.slice(0, Math.max(0, this.head.length - (count - this.tail.length)));
      this.tail = "";
    }
  }

  text(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.dropped} characters of output dropped here to save memory ...]\n${this.tail}`;
  }
}
