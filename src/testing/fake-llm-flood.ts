import type { ServerResponse } from "node:http";
import { constants, crc32, deflateRawSync } from "node:zlib";

/**
 * Replies far larger than any real one, for tests of the client's size cap: the start of a chat
 * reply whose content never ends, then `fill` bytes up to the size asked.
 */
const HEAD = Buffer.from('{"id":"flood","object":"chat.completion","choices":[{"message":{"content":"');
const MIB = 1024 ** 2;
const FILL = Buffer.alloc(MIB, "a");

/** Sends `bytes` bytes of reply, chunked, as fast as the client reads them; stops when it hangs up. */
export function sendFlood(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { "content-type": "application/json" });
  let sent = 0;
  const pump = () => {
    while (sent < bytes && !res.destroyed) {
      const chunk = sent === 0 ? HEAD : FILL.subarray(0, Math.min(MIB, bytes - sent));
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

const floods = new Map<number, Buffer>();

/**
 * A gzip body that decodes to `bytes` bytes of reply (whole MiB after the head), about 1 KB per MiB:
 * one MiB of fill compressed once with a full flush (which makes it stand alone) and repeated,
 * framed with a correct CRC and length, so a client that reads it all sees a valid stream.
 */
export function gzipFlood(bytes: number): Buffer {
  const cached = floods.get(bytes);
  if (cached) return cached;
  const full = { finishFlush: constants.Z_FULL_FLUSH };
  const blocks = Math.max(0, Math.floor((bytes - HEAD.length) / MIB));
  const fillBlock = deflateRawSync(FILL, full);
  let crc = crc32(HEAD);
  for (let i = 0; i < blocks; i++) crc = crc32(FILL, crc);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((HEAD.length + blocks * MIB) % 2 ** 32, 4);
  const body = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]),
    deflateRawSync(HEAD, full),
    ...Array.from({ length: blocks }, () => fillBlock),
    deflateRawSync(Buffer.alloc(0)),
    trailer,
  ]);
  floods.set(bytes, body);
  return body;
}
