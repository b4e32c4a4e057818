import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";

/** Throws a readable error unless `path` is absolute (environment file paths always are). */
export function requireAbsolute(path: string): void {
  if (path.includes("\0")) {
    throw new Error(`path ${JSON.stringify(path)} contains a NUL byte (\\0), which no file name can hold`);
  }
  if (!isAbsolute(path)) {
    throw new Error(`path must be absolute (inside the environment), got ${JSON.stringify(path)}`);
  }
}

/** True when `path` is `dir` or lies below it (both absolute). */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function readProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOENT"
    ? "no such file"
    : code === "EISDIR"
      ? "it is a directory"
      : code === "EACCES"
        ? "permission denied"
        : (err as Error).message;
}

/** At most `limit` bytes from the handle's current position. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = Buffer.allocUnsafe(Math.min(256 * 1024, limit - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Reads a host file through one open handle, so what is checked is what is read: it must be a
 * regular file (opened without waiting on a pipe's writer), and with `maxBytes` at most that many
 * bytes and one more are read, however large the file became since anyone looked at it. A failure
 * names the path as the environment sees it (`shown`).
 */
export async function readHostFile(hostPath: string, shown: string, maxBytes?: number): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(hostPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new Error(`cannot read ${shown}: ${readProblem(err)}`);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new Error("it is a directory");
    if (!stat.isFile()) throw new Error("it is not a regular file (a device, a socket or a pipe)");
    return maxBytes === undefined ? await handle.readFile() : await readAtMost(handle, maxBytes + 1);
  } catch (err) {
    throw new Error(`cannot read ${shown}: ${readProblem(err)}`);
  } finally {
    await handle.close();
  }
}

/**
 * A result refusing a command that holds a NUL byte (in its text, working directory or variables):
 * no program can receive one, so the command cannot run as written. Null when there is none.
 */
export function nulProblem(
  command: string,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): { output: string; returncode: number; timedOut: false } | null {
  const fields = [command, opts.cwd ?? "", ...Object.entries(opts.env ?? {}).flat()];
  if (!fields.some((f) => f.includes("\0"))) return null;
  return {
    output:
      "The command was not run: it contains a NUL byte (\\0), which no program can receive in its " +
      "arguments. Write the byte with printf '\\0' or an escape inside the command instead of a raw NUL.",
    returncode: 2,
    timedOut: false,
  };
}
