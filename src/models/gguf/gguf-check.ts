import { createHash } from "node:crypto";
import { ggmlType } from "./ggml-types.js";
import { BoundedReader, PastEnd } from "./gguf-reader.js";

/**
 * What patchloop accepts of a GGUF file before node-llama-cpp sees it. The counts are far above any
 * published model's (a few thousand tensors, a few dozen metadata entries, vocabularies of ~260k
 * tokens and merge lists of ~500k) and keep what llama.cpp allocates for the header bounded.
 */
export const GGUF_LIMITS = {
  metadata: 65_536,
  tensors: 65_536,
  arrayItems: 1 << 22,
  /** The GGUF specification's longest key. */
  keyBytes: 65_535,
  /** ggml's GGML_MAX_NAME less its terminating NUL. */
  nameBytes: 63,
  dims: 4,
} as const;

/** Fewest bytes of one metadata entry (empty key, type, a one-byte value) and of one tensor info (empty name, no dimension). */
const MIN_ENTRY = 8 + 4 + 1;
const MIN_TENSOR = 8 + 4 + 4 + 8;
const HEADER = 4 + 4 + 8 + 8;
const DEFAULT_ALIGNMENT = 32;

/** Bytes of the scalar value types (gguf_type codes). */
const SCALAR: Readonly<Record<number, number>> = {
  0: 1,
  1: 1,
  2: 2,
  3: 2,
  4: 4,
  5: 4,
  6: 4,
  7: 1,
  10: 8,
  11: 8,
  12: 8,
};
const STRING = 8;
const ARRAY = 9;
const U32 = 4;

/** Text from the file as it may be shown on a terminal: printable ASCII, anything else as \xNN, cut at 80. */
export function shown(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}...` : text;
  return `"${cut.replace(/[^\x20-\x7e]|["\\]/g, (c) => (c === '"' || c === "\\" ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`))}"`;
}

/** A problem found in the file: the message, without the file's name. */
class Bad extends Error {}

/**
 * What is wrong with the GGUF file open at `fd` (`size` bytes, starting with the magic), or null.
 * Reads the header, every metadata entry and every tensor info with bounds checks (string lengths
 * within the file, array lengths within the file and GGUF_LIMITS, counts against the bytes they
 * need), and checks that each tensor's data lies within the file where llama.cpp will look for it.
 * Reads through one 1 MiB buffer; stores at most GGUF_LIMITS names.
 */
export function ggufStructureProblem(fd: number, size: number): string | null {
  const r = new BoundedReader(fd, size);
  let where = "the header";
  try {
    check(r, (w) => {
      where = w;
    });
    return null;
  } catch (e) {
    if (e instanceof Bad) return e.message;
    if (e instanceof PastEnd)
      return `${where}: ${e.what} at byte ${e.at} needs ${e.wanted} bytes, past the end of the ${size}-byte file (it is cut short or damaged)`;
    throw e;
  }
}

function check(r: BoundedReader, at: (where: string) => void): void {
  const size = r.size;
  if (size < HEADER)
    throw new Bad(
      `the file holds ${size} bytes, fewer than the ${HEADER} of a GGUF header (magic, version, tensor count, metadata count)`,
    );
  r.pos = 4;
  const version = r.u32("the version");
  if (version !== 2 && version !== 3) {
    if (version === 1)
      throw new Bad("GGUF version 1 is no longer read by llama.cpp (it reads versions 2 and 3)");
    if ((version & 0xffff) === 0 && version !== 0)
      throw new Bad(`the version reads ${version}: a big-endian GGUF file, which llama.cpp here cannot read`);
    throw new Bad(`GGUF version ${version} is unknown (llama.cpp reads versions 2 and 3)`);
  }
  const tensors = r.u64("the tensor count");
  const entries = r.u64("the metadata count");
  const room = BigInt(size - HEADER);
  if (tensors * BigInt(MIN_TENSOR) > room)
    throw new Bad(`tensor count ${tensors} cannot fit in a ${size}-byte file`);
  if (entries * BigInt(MIN_ENTRY) > room - tensors * BigInt(MIN_TENSOR))
    throw new Bad(`metadata count ${entries} cannot fit in a ${size}-byte file beside ${tensors} tensors`);
  if (tensors > BigInt(GGUF_LIMITS.tensors))
    throw new Bad(`tensor count ${tensors} is more than the ${GGUF_LIMITS.tensors} patchloop accepts`);
  if (entries > BigInt(GGUF_LIMITS.metadata))
    throw new Bad(`metadata count ${entries} is more than the ${GGUF_LIMITS.metadata} patchloop accepts`);
  const alignment = readMetadata(r, Number(entries), at);
  readTensors(r, Number(tensors), alignment, at);
}

/** Reads the metadata entries; returns general.alignment. */
function readMetadata(r: BoundedReader, entries: number, at: (where: string) => void): number {
  const seen = new Map<string, number>();
  let alignment = DEFAULT_ALIGNMENT;
  let architecture = false;
  for (let i = 0; i < entries; i++) {
    let where = `metadata entry ${i + 1} of ${entries}`;
    at(where);
    const keyLength = r.u64("the key's length");
    if (keyLength > BigInt(GGUF_LIMITS.keyBytes))
      throw new Bad(
        `${where}: its key is ${keyLength} bytes long (GGUF keys are at most ${GGUF_LIMITS.keyBytes})`,
      );
    const key = r.text(Number(keyLength), "the key");
    if (key === "") throw new Bad(`${where}: its key is empty`);
    where = `${where} (${shown(key)})`;
    at(where);
    const id = key.length > 256 ? createHash("sha256").update(key, "latin1").digest("hex") : key;
    const before = seen.get(id);
    if (before !== undefined)
      throw new Bad(`metadata key ${shown(key)} appears twice (entries ${before} and ${i + 1})`);
    seen.set(id, i + 1);
    const type = r.u32("the value's type");
    if (key === "general.alignment") {
      if (type !== U32) throw new Bad(`${where}: general.alignment has type code ${type}, not 4 (u32)`);
      alignment = r.u32("the value");
      if (alignment === 0 || (alignment & (alignment - 1)) !== 0)
        throw new Bad(`${where}: general.alignment is ${alignment}, not a power of two`);
      continue;
    }
    if (key === "general.architecture") architecture = type === STRING;
    skipValue(r, type, where);
  }
  at("after the metadata");
  if (!architecture)
    throw new Bad("it has no general.architecture (a string naming the model's kind), which llama.cpp needs");
  return alignment;
}

function skipValue(r: BoundedReader, type: number, where: string): void {
  if (type === STRING) {
    r.skip(r.u64("a string's length"), "the string");
    return;
  }
  const bytes = SCALAR[type];
  if (bytes !== undefined) {
    r.skip(BigInt(bytes), "the value");
    return;
  }
  if (type !== ARRAY) throw new Bad(`${where}: type code ${type} is not a GGUF value type`);
  const item = r.u32("the array's item type");
  const count = r.u64("the array's length");
  if (item === ARRAY) throw new Bad(`${where}: an array of arrays, which GGUF does not have`);
  const itemBytes = item === STRING ? 8 : SCALAR[item];
  if (itemBytes === undefined)
    throw new Bad(`${where}: array item type code ${item} is not a GGUF value type`);
  if (count * BigInt(itemBytes) > BigInt(r.left))
    throw new Bad(
      `${where}: an array of ${count} items cannot fit in the ${r.left} bytes left of the ${r.size}-byte file`,
    );
  if (count > BigInt(GGUF_LIMITS.arrayItems))
    throw new Bad(
      `${where}: an array of ${count} items is more than the ${GGUF_LIMITS.arrayItems} patchloop accepts`,
    );
  if (item !== STRING) {
    r.skip(count * BigInt(itemBytes), "the array");
    return;
  }
  for (let j = 0, n = Number(count); j < n; j++) r.skip(r.u64(`string ${j + 1}'s length`), `string ${j + 1}`);
}

const INT64_MAX = (1n << 63n) - 1n;

/** Reads the tensor infos and checks that each tensor's data lies within the file. */
function readTensors(
  r: BoundedReader,
  tensors: number,
  alignment: number,
  at: (where: string) => void,
): void {
  const names = new Set<string>();
  const a = BigInt(alignment);
  const pad = (n: bigint) => ((n + a - 1n) / a) * a;
  let expected = 0n;
  let last: { name: string; end: bigint } | null = null;
  for (let i = 0; i < tensors; i++) {
    let where = `tensor ${i + 1} of ${tensors}`;
    at(where);
    const nameLength = r.u64("the name's length");
    if (nameLength > BigInt(GGUF_LIMITS.nameBytes))
      throw new Bad(
        `${where}: its name is ${nameLength} bytes long (ggml names are at most ${GGUF_LIMITS.nameBytes})`,
      );
    const name = r.text(Number(nameLength), "the name");
    where = `tensor ${shown(name)}`;
    at(where);
    if (names.has(name)) throw new Bad(`${where} appears twice`);
    names.add(name);
    const dims = r.u32("the dimension count");
    if (dims > GGUF_LIMITS.dims)
      throw new Bad(`${where} has ${dims} dimensions (ggml has at most ${GGUF_LIMITS.dims})`);
    let values = 1n;
    const shape: bigint[] = [];
    for (let d = 0; d < dims; d++) {
      const n = r.u64(`dimension ${d + 1}`);
      if (n > INT64_MAX) throw new Bad(`${where}: dimension ${d + 1} is ${n}, more than ggml's 2^63-1`);
      shape.push(n);
      values *= n;
    }
    if (values > INT64_MAX)
      throw new Bad(`${where}: its shape ${shape.join(" x ")} holds more than 2^63-1 values`);
    const code = r.u32("the type");
    const type = ggmlType(code);
    if (!type)
      throw new Bad(`${where} has type code ${code}, which the llama.cpp of node-llama-cpp does not know`);
    const row = shape[0] ?? 1n;
    if (row % BigInt(type.block) !== 0n)
      throw new Bad(
        `${where}: its rows of ${row} values are not whole ${type.name} blocks of ${type.block} values`,
      );
    const offset = r.u64("the data offset");
    if (offset !== expected)
      throw new Bad(
        `${where}: its data starts at offset ${offset} of the data section, where ${expected} was expected`,
      );
    const bytes = (values / BigInt(type.block)) * BigInt(type.bytes);
    last = { name, end: offset + bytes };
    expected = pad(offset + bytes);
  }
  at("after the tensor infos");
  const data = pad(BigInt(r.pos));
  if (last && data + last.end > BigInt(r.size)) {
    const missing = data + last.end - BigInt(r.size);
    throw new Bad(
      `tensor ${shown(last.name)}: its data ends at byte ${data + last.end}, past the end of the ${r.size}-byte file (${missing} bytes are missing: it is cut short)`,
    );
  }
}
