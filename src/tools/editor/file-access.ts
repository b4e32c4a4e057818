import { posix } from "node:path";
import { shellQuote } from "../../util/shell-quote.js";
import { formatBytes } from "../base/format-bytes.js";
import type { ToolContext } from "../base/types.js";
import { describeImage, detectImage } from "./image-info.js";

/** What is at a path inside the environment. `size` is in bytes, undefined when it could not be read. */
export type PathKind =
  | { kind: "file"; size: number | undefined }
  | { kind: "dir" }
  | { kind: "missing" }
  | { kind: "other" };

/** Raised for a problem the model should be told about (missing file, binary data, ...). */
export class EditorError extends Error {}

/** A file over the size limit; `size` in bytes, null when only "more than the limit" is known. */
export class TooLargeError extends EditorError {
  constructor(
    message: string,
    readonly size: number | null,
  ) {
    super(message);
  }
}

/** Asks the environment what is at `path` (one small shell command; POSIX sh, no GNU extensions). */
export async function probePath(ctx: ToolContext, path: string): Promise<PathKind> {
  const p = shellQuote(path);
  const script =
    `if [ -d ${p} ]; then echo dir; elif [ -f ${p} ]; then printf 'file %s\\n' "$(wc -c < ${p})"; ` +
    `elif [ -e ${p} ] || [ -L ${p} ]; then echo other; else echo missing; fi`;
  const result = await ctx.env.exec(script, { timeout: ctx.timeout });
  const line = result.output.trim().split("\n").pop() ?? "";
  if (line === "dir" || line === "missing" || line === "other") return { kind: line };
  const file = /^file\s*(\d*)$/.exec(line);
  if (file) return { kind: "file", size: file[1] ? Number.parseInt(file[1], 10) : undefined };
  const detail = result.output.trim() || `exit status ${result.returncode}`;
  throw new EditorError(`Could not check what is at ${path}: ${detail}`);
}

/** The error for a path that does not exist. */
export function missingMessage(path: string): string {
  return `There is no file or directory at ${path}. Check the path: view the directory ${posix.dirname(path)} to see what it holds.`;
}

/**
 * Reads a regular file after checking it exists and is within `maxBytes`; `purpose` names the
 * command. The read itself stops past `maxBytes`, so a file swapped for a larger one after the
 * check is refused without being loaded.
 */
export async function readRegularFile(
  ctx: ToolContext,
  path: string,
  purpose: string,
  maxBytes: number,
): Promise<Buffer> {
  const probe = await probePath(ctx, path);
  if (probe.kind === "missing") throw new EditorError(missingMessage(path));
  if (probe.kind === "dir") {
    throw new EditorError(
      `${path} is a directory; ${purpose} works on a file. Give the path of a file inside it.`,
    );
  }
  if (probe.kind === "other") {
    throw new EditorError(
      `${path} is not a regular file (it may be a device, a socket or a pipe), so the editor will not open it.`,
    );
  }
  if (probe.size !== undefined && probe.size > maxBytes) {
    throw new TooLargeError(tooLargeMessage(path, probe.size, maxBytes), probe.size);
  }
  let bytes: Buffer;
  try {
    bytes = await ctx.env.readFile(path, { maxBytes });
  } catch (err) {
    throw new EditorError(`Could not read ${path}: ${(err as Error).message}`);
  }
  if (bytes.length > maxBytes) throw new TooLargeError(tooLargeMessage(path, null, maxBytes), null);
  return bytes;
}

/** The error for a file over the size limit (`size` null: larger than the limit, by how much unknown). */
export function tooLargeMessage(path: string, size: number | null, max: number): string {
  const what = size === null ? "larger than" : `${formatBytes(size)}, more than`;
  return (
    `${path} is ${what} the editor's limit of ${formatBytes(max)} for one file, ` +
    `so it was not opened. Look at parts of it from the shell instead, ` +
    `e.g. grep -n 'PATTERN' ${path} or sed -n '100,160p' ${path}.`
  );
}

/** The first `count` bytes of a file, read with `head` and `od` (POSIX) so a huge file is not loaded. */
export async function readHead(ctx: ToolContext, path: string, count: number): Promise<Buffer> {
  const q = shellQuote(path);
  const result = await ctx.env.exec(`head -c ${count} ${q} | od -An -v -tx1`, { timeout: ctx.timeout });
  const hex = result.output.match(/\b[0-9a-f]{2}\b/g) ?? [];
  return Buffer.from(hex.map((h) => Number.parseInt(h, 16)));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes file bytes as text, refusing what the editor could not write back byte for byte: images,
 * data with NUL bytes and anything that is not valid UTF-8. A byte order mark is kept in the text.
 */
export function decodeText(bytes: Buffer, path: string, purpose: string): string {
  const image = detectImage(bytes);
  if (image) {
    throw new EditorError(
      `${path} is an image (${describeImage(image)}), not a text file; ${purpose} only works on text.`,
    );
  }
  if (bytes.includes(0)) {
    throw new EditorError(
      `${path} is not a text file: it contains NUL bytes (binary data), so the editor will not show or change it. ` +
        `Inspect it from the shell, e.g. file ${path} or xxd ${path} | head.`,
    );
  }
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new EditorError(
      `${path} is not valid UTF-8 text (it may use another encoding, such as Latin-1), so the editor will not ` +
        `show or change it: writing it back could corrupt the bytes that are not UTF-8. ` +
        `Work on it from the shell instead.`,
    );
  }
}

/**
 * Refuses text with a NUL byte before anything is written: the file would hold binary data, which
 * the editor does not open (decodeText), so it could never be viewed or edited again. `what` names
 * the argument as the front calls it.
 */
export function refuseNul(text: string, what: string, path: string): void {
  if (!text.includes("\0")) return;
  throw new EditorError(
    `${what} contains a raw NUL byte (\\0) at character ${text.indexOf("\0")}, so nothing was written: ${path} ` +
      "would then hold binary data, which the editor neither shows nor changes. In code, write the byte as an " +
      'escape ("\\0" or "\\x00") instead; make a binary file from the shell (printf).',
  );
}

/** Writes a file, turning a failure into an EditorError. */
export async function writeBytes(ctx: ToolContext, path: string, data: Buffer | string): Promise<void> {
  try {
    await ctx.env.writeFile(path, data);
  } catch (err) {
    throw new EditorError(`Could not write ${path}: ${(err as Error).message}`);
  }
}

/** The error for an empty or relative path, or undefined when the path is absolute. */
export function pathProblem(path: string, cwd: string): string | undefined {
  if (path.trim() === "") {
    return `The path is empty; give the absolute path of a file, e.g. ${posix.join(cwd, "example.py")}.`;
  }
  if (path.includes("\0")) {
    return (
      `The path ${JSON.stringify(path)} contains a NUL byte (\\0), which no file name can hold. ` +
      "Give the path as plain text, e.g. " +
      `${posix.join(cwd, "example.py")}.`
    );
  }
  if (path.startsWith("/")) return undefined;
  return (
    `The path ${JSON.stringify(path)} is not absolute; the editor needs a full path starting with /. ` +
    `If you meant the one in the working directory, use ${posix.join(cwd, path)}.`
  );
}
