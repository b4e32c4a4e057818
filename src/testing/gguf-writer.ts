import { writeFileSync } from "node:fs";

/**
 * A writer of GGUF files (version 3, the format llama.cpp loads), for the tiny test models: key-value
 * metadata and F32 tensors. Layout: magic, version, tensor count, metadata count, the metadata, the
 * tensor infos (name, dimensions with the fastest-moving first, type, offset in the data section), then
 * the data section aligned to `ALIGNMENT` bytes, each tensor at an aligned offset.
 */
export type GgufValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "strings"; value: string[] }
  | { type: "i32s"; value: number[] }
  | { type: "f32s"; value: number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: the first dimension is the contiguous one (a weight of n_in x n_out is [n_in, n_out]). */
  dims: number[];
  data: Float32Array;
}

const ALIGNMENT = 32;
/** gguf_type codes. */
const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
const GGML_F32 = 0;

class ByteSink {
  private readonly parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.push(b);
  }
  pad(): void {
    const rest = this.length % ALIGNMENT;
    if (rest) this.push(Buffer.alloc(ALIGNMENT - rest));
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function writeArray<V>(out: ByteSink, type: number, values: V[], one: (v: V) => void): void {
  out.u32(T.array);
  out.u32(type);
  out.u64(values.length);
  for (const v of values) one(v);
}

function writeValue(out: ByteSink, v: GgufValue): void {
  if (v.type === "u32") {
    out.u32(T.u32);
    out.u32(v.value);
  } else if (v.type === "i32") {
    out.u32(T.i32);
    out.i32(v.value);
  } else if (v.type === "f32") {
    out.u32(T.f32);
    out.f32(v.value);
  } else if (v.type === "bool") {
    out.u32(T.bool);
    out.push(Buffer.from([v.value ? 1 : 0]));
  } else if (v.type === "string") {
    out.u32(T.string);
    out.str(v.value);
  } else if (v.type === "strings") writeArray(out, T.string, v.value, (s) => out.str(s));
  else if (v.type === "i32s") writeArray(out, T.i32, v.value, (n) => out.i32(n));
  else writeArray(out, T.f32, v.value, (n) => out.f32(n));
}

/** The bytes of a GGUF file with `metadata` and `tensors`. */
export function ggufBytes(metadata: Record<string, GgufValue>, tensors: GgufTensor[]): Buffer {
  const head = new ByteSink();
  head.push(Buffer.from("GGUF", "ascii"));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    head.str(key);
    writeValue(head, value);
  }
  const data = new ByteSink();
  for (const t of tensors) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (count !== t.data.length)
      throw new Error(
        `tensor ${t.name}: dims ${t.dims.join("x")} hold ${count} values, data has ${t.data.length}`,
      );
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(GGML_F32);
    data.pad();
    head.u64(data.length);
    data.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  head.pad();
  return Buffer.concat([head.bytes(), data.bytes()]);
}

export function writeGguf(path: string, metadata: Record<string, GgufValue>, tensors: GgufTensor[]): void {
  writeFileSync(path, ggufBytes(metadata, tensors));
}
