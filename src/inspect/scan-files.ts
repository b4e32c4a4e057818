import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** A regular file found under a scanned folder. */
export interface FoundFile {
  /** Path relative to the scanned folder, `/`-separated. */
  rel: string;
  abs: string;
  /** Folder levels below the scanned folder (a file directly in it has depth 0). */
  depth: number;
  size: number;
  mtimeMs: number;
}

export interface ScanLimits {
  maxDepth: number;
  /** Stop after this many directory entries (a guard against scanning a huge tree by mistake). */
  maxEntries: number;
}

const SKIPPED_DIRS = new Set(["node_modules", "__pycache__"]);

/**
 * Lists regular files under `root`, breadth first, sorted by relative path. Symbolic links are not
 * followed (so nothing outside `root` is listed), hidden entries (`.name`) and node_modules are skipped.
 */
export async function scanFiles(root: string, limits: ScanLimits): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  let queue: Array<{ abs: string; rel: string; depth: number }> = [{ abs: root, rel: "", depth: 0 }];
  let seen = 0;
  while (queue.length > 0 && seen < limits.maxEntries) {
    const next: typeof queue = [];
    for (const dir of queue) {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(dir.abs, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > limits.maxEntries) break;
        if (entry.name.startsWith(".") || entry.isSymbolicLink()) continue;
        const abs = join(dir.abs, entry.name);
        const rel = dir.rel ? `${dir.rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (dir.depth < limits.maxDepth && !SKIPPED_DIRS.has(entry.name)) {
            next.push({ abs, rel, depth: dir.depth + 1 });
          }
        } else if (entry.isFile()) {
          const info = await stat(abs).catch(() => null);
          if (info) found.push({ rel, abs, depth: dir.depth, size: info.size, mtimeMs: info.mtimeMs });
        }
      }
    }
    queue = next;
  }
  return found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Whether a file name is a trajectory the viewer reads (`*.traj.json`, `*.traj`). */
export function isTrajectoryName(rel: string): boolean {
  return rel.endsWith(".traj.json") || rel.endsWith(".traj");
}
