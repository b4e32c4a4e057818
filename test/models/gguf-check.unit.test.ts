import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { modelServerProblem } from "../../src/batch/preflight.js";
import { ggufFileProblem } from "../../src/models/gguf/model-file.js";
import {
  writeGarbageHeaderGguf,
  writeHugeCountGguf,
  writeShortHeaderGguf,
  writeTruncatedGguf,
} from "../../src/testing/gguf-damaged.js";
import { writeTinyModel } from "../../src/testing/gguf-tiny-model.js";
import { modelConfig } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAMAGED =
  "it is damaged or not a whole GGUF model: download it again and compare its sha256 with the model page's (docs/models.md)";

/** Little-endian bytes of a hand-made GGUF file. */
class Bytes {
  private readonly parts: Buffer[] = [];
  raw(b: Buffer | string): this {
    this.parts.push(typeof b === "string" ? Buffer.from(b, "latin1") : b);
    return this;
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return this.raw(b);
  }
  u64(v: bigint | number): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    return this.raw(b);
  }
  str(s: string): this {
    return this.u64(Buffer.byteLength(s, "latin1")).raw(s);
  }
  /** A metadata entry holding a string. */
  kvString(key: string, value: string): this {
    return this.str(key).u32(8).str(value);
  }
  /** A tensor info: name, dims, ggml type, offset. */
  tensor(name: string, dims: number[], type: number, offset: number): this {
    this.str(name).u32(dims.length);
    for (const d of dims) this.u64(d);
    return this.u32(type).u64(offset);
  }
  /** Zero bytes up to a multiple of 32. */
  pad(): this {
    const n = this.length % 32;
    return n ? this.raw(Buffer.alloc(32 - n)) : this;
  }
  get length(): number {
    return this.parts.reduce((a, b) => a + b.length, 0);
  }
  write(name: string): string {
    const path = join(dir, name);
    writeFileSync(path, Buffer.concat(this.parts));
    return path;
  }
}

/** A header with `tensors` tensors and `entries` metadata entries, general.architecture first. */
const head = (tensors: number, entries: number) =>
  new Bytes().raw("GGUF").u32(3).u64(tensors).u64(entries).kvString("general.architecture", "llama");

/** `ggufFileProblem` of `path`, which must be one line. */
function problem(path: string): string | null {
  const p = ggufFileProblem(path);
  if (p !== null) expect(p).not.toContain("\n");
  return p;
}

describe("the GGUF check before node-llama-cpp", () => {
  it("accepts the tiny model, whole", () => {
    expect(problem(writeTinyModel(dir))).toBeNull();
  });

  it("refuses a 24-byte file with a tensor count of 2^64-1 (issue 41, item 15)", () => {
    const path = writeHugeCountGguf(dir);
    expect(problem(path)).toBe(
      `${path}: tensor count 18446744073709551615 cannot fit in a 24-byte file; ${DAMAGED}`,
    );
  });

  it("refuses a header cut before its metadata count", () => {
    const path = writeShortHeaderGguf(dir);
    expect(problem(path)).toBe(
      `${path}: the file holds 20 bytes, fewer than the 24 of a GGUF header (magic, version, tensor count, metadata count); ${DAMAGED}`,
    );
  });

  it("refuses a garbage header after the magic", () => {
    const path = writeGarbageHeaderGguf(dir);
    const version = readFileSync(path).readUInt32LE(4);
    expect(problem(path)).toBe(
      `${path}: GGUF version ${version} is unknown (llama.cpp reads versions 2 and 3); ${DAMAGED}`,
    );
  });

  it("refuses a garbage header with a good version: the counts cannot fit", () => {
    const garbage = readFileSync(writeGarbageHeaderGguf(dir));
    garbage.writeUInt32LE(3, 4);
    const path = join(dir, "garbage-v3.gguf");
    writeFileSync(path, garbage);
    const tensors = garbage.readBigUInt64LE(8);
    expect(problem(path)).toBe(`${path}: tensor count ${tensors} cannot fit in a 4096-byte file; ${DAMAGED}`);
  });

  it("refuses the tiny model cut in half: its tensor data is missing", () => {
    const whole = readFileSync(writeTinyModel(dir)).length;
    const path = writeTruncatedGguf(dir);
    const half = Math.floor(whole / 2);
    expect(problem(path)).toMatch(
      new RegExp(
        `^${path}: tensor "[a-z_.0-9]+": its data ends at byte \\d+, past the end of the ${half}-byte file \\(\\d+ bytes are missing: it is cut short\\); `,
      ),
    );
  });

  it("refuses the tiny model cut at every third byte of its header, and in its data, each in one line", () => {
    const whole = readFileSync(writeTinyModel(dir));
    // the header ends with the last tensor's info (name, 2 dimensions, type, offset), padded to 32
    const last = Buffer.from("blk.0.ffn_down.weight", "latin1");
    const header = Math.ceil((whole.lastIndexOf(last) + last.length + 4 + 16 + 4 + 8) / 32) * 32;
    const path = join(dir, "cut.gguf");
    const problems = new Set<string>();
    const cuts = [
      ...Array.from({ length: (header - 4) / 3 }, (_, i) => 4 + 3 * i),
      ...Array.from({ length: 20 }, (_, i) => header + 97 * i),
    ];
    for (const keep of cuts) {
      writeFileSync(path, whole.subarray(0, keep));
      const p = problem(path);
      expect(p, `cut at ${keep}`).not.toBeNull();
      problems.add((p as string).replace(/\d+/g, "N"));
    }
    // the cut lands in the header, a key, a string, an array of strings, a tensor info, the data
    const kinds = [
      "fewer than the N of a GGUF header",
      'metadata entry N of N ("tokenizer.ggml.tokens"): string N\'s length at byte N needs N bytes',
      'metadata entry N of N ("tokenizer.chat_template"): the string at byte N needs N bytes',
      "tensor N of N: the name's length at byte N needs N bytes",
      "bytes are missing: it is cut short",
    ];
    for (const kind of kinds)
      expect(
        [...problems].some((p) => p.includes(kind)),
        kind,
      ).toBe(true);
  });

  it("names the entry whose string runs past the end, with its byte", () => {
    const path = head(0, 2).str("general.name").u32(8).u64(1_000_000).raw("abc").write("long-string.gguf");
    expect(problem(path)).toBe(
      `${path}: metadata entry 2 of 2 ("general.name"): the string at byte 101 needs 1000000 bytes, past the end of the 104-byte file (it is cut short or damaged); ${DAMAGED}`,
    );
  });

  it("bounds array lengths by the file and by a cap", () => {
    const past = head(0, 2)
      .str("tokenizer.ggml.scores")
      .u32(9)
      .u32(6)
      .u64(1n << 60n)
      .write("array-past.gguf");
    expect(problem(past)).toBe(
      `${past}: metadata entry 2 of 2 ("tokenizer.ggml.scores"): an array of 1152921504606846976 items cannot fit in the 0 bytes left of the 114-byte file; ${DAMAGED}`,
    );
    const many = head(0, 2)
      .str("tokenizer.ggml.token_type")
      .u32(9)
      .u32(0)
      .u64(5_000_000)
      .raw(Buffer.alloc(5_000_000))
      .write("array-many.gguf");
    expect(problem(many)).toBe(
      `${many}: metadata entry 2 of 2 ("tokenizer.ggml.token_type"): an array of 5000000 items is more than the 4194304 patchloop accepts; ${DAMAGED}`,
    );
    const nested = head(0, 2).str("x").u32(9).u32(9).u64(1).u32(4).u64(1).u32(7).write("nested.gguf");
    expect(problem(nested)).toBe(
      `${nested}: metadata entry 2 of 2 ("x"): an array of arrays, which GGUF does not have; ${DAMAGED}`,
    );
  });

  it("refuses the metadata count that cannot fit, and one over the cap", () => {
    const path = new Bytes().raw("GGUF").u32(3).u64(0).u64(1000).raw(Buffer.alloc(100)).write("many-kv.gguf");
    expect(problem(path)).toBe(
      `${path}: metadata count 1000 cannot fit in a 124-byte file beside 0 tensors; ${DAMAGED}`,
    );
    const capped = new Bytes()
      .raw("GGUF")
      .u32(3)
      .u64(0)
      .u64(70_000)
      .raw(Buffer.alloc(13 * 70_000))
      .write("cap-kv.gguf");
    expect(problem(capped)).toBe(
      `${capped}: metadata count 70000 is more than the 65536 patchloop accepts; ${DAMAGED}`,
    );
  });

  it("refuses versions llama.cpp cannot read", () => {
    const v1 = new Bytes().raw("GGUF").u32(1).u64(0).u64(0).write("v1.gguf");
    expect(problem(v1)).toBe(
      `${v1}: GGUF version 1 is no longer read by llama.cpp (it reads versions 2 and 3); ${DAMAGED}`,
    );
    const big = new Bytes().raw("GGUF").u32(0x03000000).u64(0).u64(0).write("big-endian.gguf");
    expect(problem(big)).toBe(
      `${big}: the version reads 50331648: a big-endian GGUF file, which llama.cpp here cannot read; ${DAMAGED}`,
    );
  });

  it("refuses bad keys, value types, a bad alignment and a missing architecture", () => {
    const dup = head(0, 2).kvString("general.architecture", "llama").write("dup.gguf");
    expect(problem(dup)).toBe(
      `${dup}: metadata key "general.architecture" appears twice (entries 1 and 2); ${DAMAGED}`,
    );
    const longKey = head(0, 2).u64(70_000).raw(Buffer.alloc(70_000)).write("long-key.gguf");
    expect(problem(longKey)).toBe(
      `${longKey}: metadata entry 2 of 2: its key is 70000 bytes long (GGUF keys are at most 65535); ${DAMAGED}`,
    );
    const empty = head(0, 2).str("").u32(7).raw("\x01").write("empty-key.gguf");
    expect(problem(empty)).toBe(`${empty}: metadata entry 2 of 2: its key is empty; ${DAMAGED}`);
    const type = head(0, 2).str("k\x1b[2J").u32(13).u32(0).write("type.gguf");
    expect(problem(type)).toBe(
      `${type}: metadata entry 2 of 2 ("k\\x1b[2J"): type code 13 is not a GGUF value type; ${DAMAGED}`,
    );
    const align = head(0, 2).str("general.alignment").u32(4).u32(24).write("align.gguf");
    expect(problem(align)).toBe(
      `${align}: metadata entry 2 of 2 ("general.alignment"): general.alignment is 24, not a power of two; ${DAMAGED}`,
    );
    const noArch = new Bytes()
      .raw("GGUF")
      .u32(3)
      .u64(0)
      .u64(1)
      .kvString("general.name", "x")
      .write("no-arch.gguf");
    expect(problem(noArch)).toBe(
      `${noArch}: it has no general.architecture (a string naming the model's kind), which llama.cpp needs; ${DAMAGED}`,
    );
  });

  it("refuses tensor infos that llama.cpp would refuse", () => {
    const cases: [string, Bytes, string][] = [
      [
        "name",
        head(1, 1).str("n".repeat(64)).u32(1).u64(32).u32(0).u64(0),
        "tensor 1 of 1: its name is 64 bytes long (ggml names are at most 63)",
      ],
      [
        "dims",
        head(1, 1).tensor("a", [1, 1, 1, 1, 1], 0, 0),
        'tensor "a" has 5 dimensions (ggml has at most 4)',
      ],
      [
        "type",
        head(1, 1).tensor("a", [32], 4, 0),
        'tensor "a" has type code 4, which the llama.cpp of node-llama-cpp does not know',
      ],
      [
        "block",
        head(1, 1).tensor("a", [33], 2, 0),
        'tensor "a": its rows of 33 values are not whole Q4_0 blocks of 32 values',
      ],
      [
        "offset",
        head(2, 1).tensor("a", [8], 0, 0).tensor("b", [8], 0, 64),
        'tensor "b": its data starts at offset 64 of the data section, where 32 was expected',
      ],
      ["twice", head(2, 1).tensor("a", [8], 0, 0).tensor("a", [8], 0, 32), 'tensor "a" appears twice'],
      [
        "values",
        head(1, 1).tensor("a", [1 << 30, 1 << 30, 1 << 30], 0, 0),
        'tensor "a": its shape 1073741824 x 1073741824 x 1073741824 holds more than 2^63-1 values',
      ],
    ];
    for (const [name, bytes, message] of cases) {
      const path = bytes.pad().raw(Buffer.alloc(64)).write(`tensor-${name}.gguf`);
      expect(problem(path), name).toBe(`${path}: ${message}; ${DAMAGED}`);
    }
    const huge = head(1, 1)
      .str("a")
      .u32(1)
      .u64(1n << 63n)
      .u32(0)
      .u64(0)
      .write("tensor-dim.gguf");
    expect(problem(huge)).toBe(
      `${huge}: tensor "a": dimension 1 is 9223372036854775808, more than ggml's 2^63-1; ${DAMAGED}`,
    );
  });

  it("accepts a hand-made file whose one tensor's data ends at the file's end", () => {
    const b = head(1, 1).tensor("a", [8], 0, 0).pad();
    const path = b.raw(Buffer.alloc(32)).write("exact.gguf");
    expect(problem(path)).toBeNull();
    const short = readFileSync(path).subarray(0, b.length - 1);
    writeFileSync(path, short);
    expect(problem(path)).toBe(
      `${path}: tensor "a": its data ends at byte ${b.length}, past the end of the ${b.length - 1}-byte file (1 bytes are missing: it is cut short); ${DAMAGED}`,
    );
  });

  it("never throws and answers in one line on the tiny model with bytes of its header changed", () => {
    const whole = readFileSync(writeTinyModel(dir));
    const path = join(dir, "fuzz.gguf");
    let x = 12345;
    const rand = (n: number) => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x % n;
    };
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const copy = Buffer.from(whole);
      for (let k = 0; k <= rand(4); k++) copy[4 + rand(2000)] = rand(256);
      writeFileSync(path, copy);
      if (problem(path) !== null) refused++;
    }
    expect(refused).toBeGreaterThan(100);
  });

  it("is what the batch's preflight reports for a gguf: model", async () => {
    const path = writeHugeCountGguf(dir);
    const warned: string[] = [];
    const found = await modelServerProblem(modelConfig({ model_name: `gguf:${path}` }), (m) =>
      warned.push(m),
    );
    expect(found).toBe(`${path}: tensor count 18446744073709551615 cannot fit in a 24-byte file; ${DAMAGED}`);
    expect(
      await modelServerProblem(modelConfig({ model_name: `gguf:${writeTinyModel(dir)}` }), () => {}),
    ).toBeNull();
    expect(warned).toEqual([]);
  });
});
