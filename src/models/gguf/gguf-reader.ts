import { readSync } from "node:fs";

/** The reader's one buffer: every read goes through it, whatever the file claims. */
const WINDOW = 1 << 20;

/** A read that would go past the end of the file: `what` ran out at `at`. */
export class PastEnd extends Error {
  constructor(
    readonly what: string,
    readonly at: number,
    readonly wanted: bigint,
  ) {
    super(`${what} at byte ${at} needs ${wanted} bytes`);
  }
}

/**
 * Little-endian reads from an open file through one buffer of at most 1 MiB (the file's size when smaller). A length the file gives is
 * compared with the bytes left before anything is read or skipped, so no count from the file ever
 * sizes an allocation; a longer string than the window is refused by `string` and only skipped.
 */
export class BoundedReader {
  private readonly buf: Buffer;
  /** File offset of buf[0], and how many bytes of buf hold file data. */
  private start = 0;
  private filled = 0;
  /** File offset of the next read. */
  pos = 0;

  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {
    this.buf = Buffer.alloc(Math.min(WINDOW, size));
  }

  /** Bytes left after `pos`. */
  get left(): number {
    return this.size - this.pos;
  }

  /** Makes bytes [pos, pos + n) available in the buffer (n <= WINDOW); throws PastEnd beyond the file. */
  private need(n: number, what: string): number {
    if (n > this.left) throw new PastEnd(what, this.pos, BigInt(n));
    const off = this.pos - this.start;
    if (off >= 0 && off + n <= this.filled) return off;
    this.start = this.pos;
    const want = Math.min(WINDOW, this.size - this.pos);
    let got = 0;
    while (got < want) {
      const r = readSync(this.fd, this.buf, got, want - got, this.start + got);
      if (r === 0) break;
      got += r;
    }
    this.filled = got;
    if (n > got) throw new PastEnd(what, this.pos, BigInt(n));
    return 0;
  }

  u8(what: string): number {
    const o = this.need(1, what);
    this.pos += 1;
    return this.buf[o];
  }

  u32(what: string): number {
    const o = this.need(4, what);
    this.pos += 4;
    return this.buf.readUInt32LE(o);
  }

  u64(what: string): bigint {
    const o = this.need(8, what);
    this.pos += 8;
    return this.buf.readBigUInt64LE(o);
  }

  /** Moves past `n` bytes (a length read from the file), refusing to go past the end. */
  skip(n: bigint, what: string): void {
    if (n > BigInt(this.left)) throw new PastEnd(what, this.pos, n);
    this.pos += Number(n);
  }

  /** A string of `n` bytes (n already known to be at most `max` <= the window), as latin1 text. */
  text(n: number, what: string): string {
    const o = this.need(n, what);
    this.pos += n;
    return this.buf.toString("latin1", o, o + n);
  }
}
