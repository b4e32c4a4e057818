import { Parser } from "tar";
import type { Environment } from "../environments/types.js";
import { shellQuote } from "../util/shell-quote.js";
import { type DocStore, type ReadLimits, type RepoSnapshot, SnapshotBuilder } from "./repo-files.js";

/**
 * The repository inside an environment (a container's /testbed, a sandbox, the host), read in
 * one pass whatever its size: one command lists the files with their sizes (git's tracked files,
 * or every file below the root outside .git and caches when it is not a git work tree), one
 * command packs those under the size limit into a tar file inside the environment, one read brings
 * that file back, one command removes it. Needs a POSIX shell, GNU find and GNU tar in the
 * environment (Debian and Ubuntu images, SWE-bench's included, have them).
 */

const LIST = String.raw`cd -- "$1" || exit 3
if git -c safe.directory='*' rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -c safe.directory='*' -c core.quotepath=off ls-files -z | sed -z 's|^|./|'
else
  find . \( -name .git -o -name __pycache__ -o -name node_modules -o -name .tox -o -name .venv -o -name venv \) -prune -o -type f -print0
fi | xargs -0 -r sh -c 'find "$@" -maxdepth 0 -type f -printf "%s %p\\0" 2>/dev/null' sh`;

const PACK = [
  'cd -- "$1" || exit 3',
  'd=$TMPDIR; [ -n "$d" ] || d=/tmp',
  't=$(mktemp "$d/patchloop-localize-XXXXXX") || exit 4',
  'if tar --null --no-recursion --ignore-failed-read -T - -cf "$t" 2>/dev/null; then echo "$t"; else rm -f -- "$t"; exit 5; fi',
].join("\n");

/** Splits the listing (`<size> ./<path>` entries, NUL-separated) into paths and sizes. */
export function parseListing(output: string): Array<{ path: string; size: number }> {
  const out: Array<{ path: string; size: number }> = [];
  for (const entry of output.split("\0")) {
    const m = /^(\d+) (?:\.\/)?(.+)$/s.exec(entry.replace(/^\n+/, ""));
    if (m) out.push({ path: m[2], size: Number(m[1]) });
  }
  return out;
}

/** The files of a tar archive (regular files only), as path → content. */
export function untar(data: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  return new Promise((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        if (entry.type !== "File") {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => files.set(entry.path.replace(/^\.\//, ""), Buffer.concat(chunks)));
      },
    });
    parser.on("end", () => resolve(files));
    parser.on("error", reject);
    parser.end(data);
  });
}

export interface EnvironmentReadOptions {
  /** The repository root inside the environment (default: the environment's cwd). */
  root?: string;
  /** Seconds each of the commands may take. */
  timeout?: number;
  signal?: AbortSignal;
}

export async function readThroughEnvironment(
  env: Environment,
  store: DocStore,
  limits: ReadLimits,
  options: EnvironmentReadOptions = {},
): Promise<RepoSnapshot> {
  const root = options.root ?? env.cwd;
  const timeout = options.timeout ?? 300;
  const b = new SnapshotBuilder(store, limits);
  const listed = await env.exec(`sh -c ${shellQuote(LIST)} sh ${shellQuote(root)}`, {
    timeout,
    signal: options.signal,
  });
  if (listed.returncode !== 0 || listed.truncated)
    throw new Error(
      `cannot list the files of ${root} in the ${env.kind} environment (exit ${listed.returncode}${listed.truncated ? ", output cut" : ""}): ${listed.output.slice(-500).trim()}`,
    );
  const entries = parseListing(listed.output);
  const wanted: string[] = [];
  for (const e of entries) {
    if (e.size > limits.maxFileBytes) b.reject(undefined, "huge");
    else wanted.push(e.path);
  }
  if (wanted.length === 0) return b.done();
  const packed = await env.exec(`sh -c ${shellQuote(PACK)} sh ${shellQuote(root)}`, {
    timeout,
    signal: options.signal,
    stdin: `${wanted.map((p) => `./${p}`).join("\0")}\0`,
  });
  const tarPath = packed.output.trim().split("\n").pop() ?? "";
  if (packed.returncode !== 0 || !tarPath.startsWith("/"))
    throw new Error(
      `cannot pack the files of ${root} in the ${env.kind} environment (exit ${packed.returncode}): ${packed.output.slice(-500).trim()}`,
    );
  let data: Buffer;
  try {
    data = await env.readFile(tarPath);
  } finally {
    await env.exec(`rm -f -- ${shellQuote(tarPath)}`, { timeout: 60 }).catch(() => undefined);
  }
  const files = await untar(data);
  for (const path of wanted) {
    const content = files.get(path);
    if (content === undefined) b.skipped.unreadable++;
    else b.addData(path, content);
  }
  return b.done();
}
