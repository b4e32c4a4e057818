/**
 * Small, complete images built byte by byte, so image tests need no fixture files and no image
 * library. Each builder takes the pixel size it writes into the header.
 */
import { crc32, deflateSync } from "node:zlib";

function u16be(n: number): number[] {
  return [(n >> 8) & 0xff, n & 0xff];
}

function u16le(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff];
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** An RGB PNG filled with one colour: signature, IHDR, IDAT (zlib), IEND, each chunk with its CRC. */
export function pngBytes(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits per sample, RGB, deflate, no filter method, no interlace
  const row = Buffer.from([0, ...Array.from({ length: width }, () => [200, 30, 30]).flat()]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A baseline greyscale JPEG of at most 8x8 pixels (one block): JFIF APP0, a flat quantisation
 * table, SOF0, one-code Huffman tables, and one block whose DC difference is 0 followed by end-of-block.
 */
export function jpegBytes(width: number, height: number): Buffer {
  if (width > 8 || height > 8) throw new Error("jpegBytes writes a single 8x8 block");
  const segment = (marker: number, body: number[]) => [0xff, marker, ...u16be(body.length + 2), ...body];
  const oneCodeTable = (tableClass: number) => [tableClass << 4, 1, ...new Array(15).fill(0), 0x00];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, ...u16be(1), ...u16be(1), 0, 0]),
    ...segment(0xdb, [0x00, ...new Array(64).fill(1)]),
    ...segment(0xc0, [8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0]),
    ...segment(0xc4, oneCodeTable(0)),
    ...segment(0xc4, oneCodeTable(1)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    0x3f, // bits 0 (DC category 0) and 0 (end of block), padded with ones
    0xff,
    0xd9,
  ]);
}

/** A GIF89a whose logical screen is width x height, holding one 1x1 frame (LZW: clear, 0, end). */
export function gifBytes(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    Buffer.from([...u16le(width), ...u16le(height), 0x80, 0, 0]),
    Buffer.from([0, 0, 0, 255, 255, 255]),
    Buffer.from([0x2c, ...u16le(0), ...u16le(0), ...u16le(1), ...u16le(1), 0]),
    Buffer.from([2, 2, 0x44, 0x01, 0, 0x3b]),
  ]);
}

/** Writes bits least significant first, as VP8L reads them. */
class BitWriter {
  private bytes: number[] = [];
  private bit = 0;
  write(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      if (this.bit % 8 === 0) this.bytes.push(0);
      if ((value >> i) & 1) this.bytes[this.bytes.length - 1] |= 1 << (this.bit % 8);
      this.bit++;
    }
  }
  buffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

/**
 * A lossless WebP (RIFF, VP8L) filled with one colour: no transforms, no colour cache, and five
 * one-symbol prefix codes, so the pixels themselves take no bits.
 */
export function webpBytes(width: number, height: number): Buffer {
  const w = new BitWriter();
  w.write(0x2f, 8);
  w.write(width - 1, 14);
  w.write(height - 1, 14);
  w.write(0, 1); // alpha hint
  w.write(0, 3); // version
  w.write(0, 1); // no transform
  w.write(0, 1); // no colour cache
  w.write(0, 1); // no meta prefix codes
  const simple = (symbol: number) => {
    w.write(1, 1); // simple code
    w.write(0, 1); // one symbol
    if (symbol < 2) {
      w.write(0, 1);
      w.write(symbol, 1);
    } else {
      w.write(1, 1);
      w.write(symbol, 8);
    }
  };
  for (const symbol of [120, 40, 200, 255, 0]) simple(symbol); // green, red, blue, alpha, distance
  const data = w.buffer();
  const padded = data.length % 2 === 1 ? Buffer.concat([data, Buffer.from([0])]) : data;
  const chunk = Buffer.concat([Buffer.from("VP8L", "latin1"), u32le(data.length), padded]);
  return Buffer.concat([
    Buffer.from("RIFF", "latin1"),
    u32le(4 + chunk.length),
    Buffer.from("WEBP", "latin1"),
    chunk,
  ]);
}
