import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runProcess } from "../util/run-process.js";
import { type DocStore, type ReadLimits, type RepoSnapshot, SnapshotBuilder } from "./repo-files.js";

/**
 * The tracked files of a git work tree on this machine, as the index lists them (`git ls-files -s`:
 * path and blob id). A file whose blob the store already holds is not read again; the others are
 * read from the work tree. Meant for fresh checkouts (workspace.ts), whose files are what the
 * index says; symbolic links and submodules are left out.
 */
export async function readWorkTree(dir: string, store: DocStore, limits: ReadLimits): Promise<RepoSnapshot> {
  const b = new SnapshotBuilder(store, limits);
  const listed = await runProcess("git", ["-C", dir, "ls-files", "-s", "-z"], {
    maxStdout: 256 * 1024 * 1024,
  });
  if (listed.code !== 0) {
    const why = listed.overflowed
      ? "the listing passed 256 MiB"
      : listed.stderr.trim() || `exit status ${listed.code}`;
    throw new Error(`cannot list the files of ${dir} (git ls-files): ${why}`);
  }
  const listing = listed.stdout.toString("utf8");
  const todo: Array<{ path: string; blob: string }> = [];
  for (const entry of listing.split("\0")) {
    // `<mode> <blob> <stage>\t<path>`
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, blob, stage] = entry.slice(0, tab).split(" ");
    const path = entry.slice(tab + 1);
    if (stage !== "0" || !(mode === "100644" || mode === "100755")) continue;
    if (!b.addKnown(path, blob)) todo.push({ path, blob });
  }
  // a few reads at a time: enough to keep the disk busy without holding every file at once
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const { path, blob } = todo[next++];
      const full = join(dir, path);
      try {
        const st = await lstat(full);
        if (!st.isFile()) b.skipped.unreadable++;
        else if (st.size > limits.maxFileBytes) b.reject(blob, "huge");
        else b.addData(path, await readFile(full), blob);
      } catch {
        b.skipped.unreadable++;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return b.done();
}
