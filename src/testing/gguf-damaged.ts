import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeTinyModel } from "./gguf-tiny-model.js";

/**
 * The damaged GGUF files of issue 43 and issue 41 item 15, for the tests of the GGUF check
 * (src/models/gguf/gguf-check.ts), `patchloop run` and the batch's preflight. Each starts with the
 * magic "GGUF", so only a check of what follows it can refuse it. Before the check, the first two
 * made node-llama-cpp 3.21.1 parse for minutes while its memory grew past 2.5 GB.
 */

/** 24 bytes: version 3, tensor count 2^64-1, no metadata. */
export function writeHugeCountGguf(dir: string): string {
  const b = Buffer.alloc(24);
  b.write("GGUF", 0, "latin1");
  b.writeUInt32LE(3, 4);
  b.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 8);
  b.writeBigUInt64LE(0n, 16);
  const path = join(dir, "huge-count.gguf");
  writeFileSync(path, b);
  return path;
}

/** 20 bytes: version 3 and a tensor count of 2^64-1, cut before the metadata count. */
export function writeShortHeaderGguf(dir: string): string {
  const b = Buffer.alloc(20);
  b.write("GGUF", 0, "latin1");
  b.writeUInt32LE(3, 4);
  b.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 8);
  const path = join(dir, "short-header.gguf");
  writeFileSync(path, b);
  return path;
}

/** 4 KiB: the magic, then bytes of a fixed generator (no version, counts or entries that hold together). */
export function writeGarbageHeaderGguf(dir: string): string {
  const b = Buffer.alloc(4096);
  let x = 0x9e3779b9;
  for (let i = 0; i < b.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    b[i] = x >>> 24;
  }
  b.write("GGUF", 0, "latin1");
  const path = join(dir, "garbage-header.gguf");
  writeFileSync(path, b);
  return path;
}

/** The tiny model (gguf-tiny-model.ts) cut to its first `keep` bytes (default: half), as an interrupted download is. */
export function writeTruncatedGguf(dir: string, keep?: number): string {
  const whole = readFileSync(writeTinyModel(dir));
  const path = join(dir, "truncated.gguf");
  writeFileSync(path, whole.subarray(0, keep ?? Math.floor(whole.length / 2)));
  return path;
}
