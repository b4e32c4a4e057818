import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";

/** Throws a readable error unless `path` is absolute (environment file paths always are). */
export function requireAbsolute(path: string): void {
  if (!isAbsolute(path)) {
    throw new Error(`path must be absolute (inside the environment), got ${JSON.stringify(path)}`);
  }
}

/** True when `path` is `dir` or lies below it (both absolute). */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Reads a host file; a failure names the path as the environment sees it (`shown`). */
export async function readHostFile(hostPath: string, shown: string): Promise<Buffer> {
  try {
    return await readFile(hostPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a directory"
          : code === "EACCES"
            ? "permission denied"
            : (err as Error).message;
    throw new Error(`cannot read ${shown}: ${reason}`);
  }
}
