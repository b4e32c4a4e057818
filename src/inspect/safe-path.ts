import { realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";

/**
 * Splits a `/`-separated relative path from a request into decoded segments, or returns null when it
 * could point anywhere but below the served folder: an empty path, an empty segment (a leading `/`
 * or `//`), `.` or `..` (also percent-encoded), a segment holding `/`, `\` or NUL after
 * decoding, or invalid percent-encoding. `decode` is false for values that are already decoded
 * (query parameters).
 */
export function safeSegments(raw: string, decode: boolean): string[] | null {
  if (raw === "") return null;
  const segments: string[] = [];
  for (const part of raw.split("/")) {
    let seg: string;
    try {
      seg = decode ? decodeURIComponent(part) : part;
    } catch {
      return null;
    }
    if (seg === "" || seg === "." || seg === ".." || /[/\\\0]/.test(seg)) return null;
    segments.push(seg);
  }
  return segments;
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/**
 * The real path of the regular file `segments` names below `root`, or null when it does not exist,
 * is not a regular file, or lies outside `root` once symbolic links are followed. `root` must itself
 * be a real path (no symbolic links in it).
 */
export async function resolveInside(root: string, segments: string[]): Promise<string | null> {
  const joined = join(root, ...segments);
  if (!isInside(root, joined)) return null;
  try {
    const real = await realpath(joined);
    if (!isInside(root, real)) return null;
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}
