/**
 * A minimal Apache Parquet writer for tests: string columns (OPTIONAL, nulls allowed, UTF8),
 * one row group, one uncompressed PLAIN data page (v1) per column, metadata in Thrift compact
 * encoding. Debian 12 packages no parquet writer (no python3-pyarrow) and package.json has only
 * the reader, so the tests make their files with this and read them back through hyparquet.
 */

class Compact {
  private bytes: number[] = [];
  private last: number[] = [0];

  varint(n: bigint): void {
    let v = n;
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) b |= 0x80;
      this.bytes.push(b);
    } while (v !== 0n);
  }
  zigzag(n: number | bigint): void {
    const v = BigInt(n);
    this.varint(v >= 0n ? v << 1n : (-v << 1n) - 1n);
  }
  field(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1];
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type);
    else {
      this.bytes.push(type);
      this.zigzag(id);
    }
    this.last[this.last.length - 1] = id;
  }
  i32(id: number, v: number): void {
    this.field(id, 5);
    this.zigzag(v);
  }
  i64(id: number, v: number): void {
    this.field(id, 6);
    this.zigzag(v);
  }
  binary(id: number, data: Uint8Array): void {
    this.field(id, 8);
    this.raw(data);
  }
  raw(data: Uint8Array): void {
    this.varint(BigInt(data.length));
    this.bytes.push(...data);
  }
  listHeader(id: number, elemType: number, size: number): void {
    this.field(id, 9);
    if (size < 15) this.bytes.push((size << 4) | elemType);
    else {
      this.bytes.push(0xf0 | elemType);
      this.varint(BigInt(size));
    }
  }
  begin(id?: number): void {
    if (id !== undefined) this.field(id, 12);
    this.last.push(0);
  }
  end(): void {
    this.bytes.push(0);
    this.last.pop();
  }
  out(): Buffer {
    return Buffer.from(this.bytes);
  }
}

const utf8 = (s: string) => Buffer.from(s, "utf8");

function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

/** Definition levels (1 = present, 0 = null) as length-prefixed RLE runs. */
function defLevels(values: Array<string | null>): Buffer {
  const runs: number[] = [];
  let i = 0;
  while (i < values.length) {
    const level = values[i] === null ? 0 : 1;
    let j = i;
    while (j < values.length && (values[j] === null ? 0 : 1) === level) j++;
    runs.push(...uleb((j - i) << 1), level);
    i = j;
  }
  const body = Buffer.from(runs);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([len, body]);
}

/** Writes rows (objects of string or null values, same keys) as a parquet file's bytes. */
export function writeParquet(rows: Array<Record<string, string | null>>): Buffer {
  const columns = Object.keys(rows[0] ?? {});
  const chunks: Buffer[] = [Buffer.from("PAR1")];
  let offset = 4;
  const meta: Array<{ name: string; offset: number; size: number }> = [];
  for (const name of columns) {
    const values = rows.map((r) => r[name] ?? null);
    const payload = Buffer.concat([
      defLevels(values),
      ...values
        .filter((v): v is string => v !== null)
        .flatMap((v) => {
          const b = utf8(v);
          const len = Buffer.alloc(4);
          len.writeUInt32LE(b.length);
          return [len, b];
        }),
    ]);
    const header = new Compact();
    header.begin();
    header.i32(1, 0); // DATA_PAGE
    header.i32(2, payload.length);
    header.i32(3, payload.length);
    header.begin(5);
    header.i32(1, values.length);
    header.i32(2, 0); // PLAIN
    header.i32(3, 3); // RLE
    header.i32(4, 3);
    header.end();
    header.end();
    const page = Buffer.concat([header.out(), payload]);
    meta.push({ name, offset, size: page.length });
    chunks.push(page);
    offset += page.length;
  }
  const f = new Compact();
  f.begin();
  f.i32(1, 1);
  f.listHeader(2, 12, columns.length + 1);
  f.begin();
  f.binary(4, utf8("schema"));
  f.i32(5, columns.length);
  f.end();
  for (const name of columns) {
    f.begin();
    f.i32(1, 6); // BYTE_ARRAY
    f.i32(3, 1); // OPTIONAL
    f.binary(4, utf8(name));
    f.i32(6, 0); // UTF8
    f.end();
  }
  f.i64(3, rows.length);
  f.listHeader(4, 12, 1);
  f.begin();
  f.listHeader(1, 12, meta.length);
  for (const m of meta) {
    f.begin();
    f.i64(2, m.offset);
    f.begin(3);
    f.i32(1, 6);
    f.listHeader(2, 5, 2);
    f.zigzag(0);
    f.zigzag(3);
    f.listHeader(3, 8, 1);
    f.raw(utf8(m.name));
    f.i32(4, 0); // UNCOMPRESSED
    f.i64(5, rows.length);
    f.i64(6, m.size);
    f.i64(7, m.size);
    f.i64(9, m.offset);
    f.end();
    f.end();
  }
  f.i64(2, offset - 4);
  f.i64(3, rows.length);
  f.end();
  f.end();
  const footer = f.out();
  const len = Buffer.alloc(4);
  len.writeUInt32LE(footer.length);
  return Buffer.concat([...chunks, footer, len, Buffer.from("PAR1")]);
}
