import { readFile } from "node:fs/promises";
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
