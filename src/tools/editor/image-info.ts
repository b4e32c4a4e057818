/** What the first bytes of a file say about it as an image. */
export interface ImageInfo {
  /** `PNG`, `JPEG`, `GIF` or `WebP`. */
  format: string;
  /** e.g. `image/png`. */
  mediaType: string;
  /** Pixel size when the header states it; undefined when it could not be read. */
  width?: number;
  height?: number;
}

function startsWith(buf: Buffer, bytes: number[], at = 0): boolean {
  return buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
}

function ascii(buf: Buffer, at: number, length: number): string {
  return buf.subarray(at, at + length).toString("latin1");
}

/** Recognises PNG, JPEG, GIF and WebP by their magic bytes; undefined for anything else. */
export function detectImage(buf: Buffer): ImageInfo | undefined {
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    const info: ImageInfo = { format: "PNG", mediaType: "image/png" };
    if (buf.length >= 24 && ascii(buf, 12, 4) === "IHDR") {
      info.width = buf.readUInt32BE(16);
      info.height = buf.readUInt32BE(20);
    }
    return info;
  }
  if (startsWith(buf, [0xff, 0xd8, 0xff]))
    return { format: "JPEG", mediaType: "image/jpeg", ...jpegSize(buf) };
  if (ascii(buf, 0, 6) === "GIF87a" || ascii(buf, 0, 6) === "GIF89a") {
    const info: ImageInfo = { format: "GIF", mediaType: "image/gif" };
    if (buf.length >= 10) {
      info.width = buf.readUInt16LE(6);
      info.height = buf.readUInt16LE(8);
    }
    return info;
  }
  if (ascii(buf, 0, 4) === "RIFF" && ascii(buf, 8, 4) === "WEBP") {
    return { format: "WebP", mediaType: "image/webp", ...webpSize(buf) };
  }
  return undefined;
}

/** Walks the JPEG segments to the first start-of-frame marker, which holds the size. */
function jpegSize(buf: Buffer): { width?: number; height?: number } {
  let at = 2;
  while (at + 9 <= buf.length) {
    if (buf[at] !== 0xff) return {};
    const marker = buf[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: buf.readUInt16BE(at + 5), width: buf.readUInt16BE(at + 7) };
    at += 2 + buf.readUInt16BE(at + 2);
  }
  return {};
}

/** The size from the first chunk of a WebP: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`). */
function webpSize(buf: Buffer): { width?: number; height?: number } {
  const chunk = ascii(buf, 12, 4);
  if (chunk === "VP8 " && buf.length >= 30) {
    return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === "VP8L" && buf.length >= 25) {
    const bits = buf.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X" && buf.length >= 30) {
    return { width: buf.readUIntLE(24, 3) + 1, height: buf.readUIntLE(27, 3) + 1 };
  }
  return {};
}

/** `PNG, 64x48 pixels` (the size left out when unknown). */
export function describeImage(info: ImageInfo): string {
  return info.width !== undefined && info.height !== undefined
    ? `${info.format}, ${info.width}x${info.height} pixels`
    : info.format;
}
