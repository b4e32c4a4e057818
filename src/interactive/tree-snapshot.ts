import { createHash } from "node:crypto";
import { constants, createReadStream, type Dirent } from "node:fs";
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  readdir,
  readlink,
  rm,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import { git, gitBlob, type HostRepo, runGit } from "./git.js";

/**
 * The whole tree of an in-place run, as it was before a sandboxed agent started (docs/sandbox.md,
 * "In place"), and what differs from it at the end. The patch holds only what git shows; the agent
 * can write much that git does not show (ignored and excluded files, bytecode, build output, a
 * tracked file hidden by an index flag), and any of it could run on this machine later. So every
 * path under the tree is recorded (the top `.git` aside: the sandbox shows it read-only), and at the
 * end whatever the patch does not account for is put back.
 *
 * Cheap where it can be: a path whose inode, size, mode, modification and change times are all as
 * they were is unchanged (the change time cannot be set back without a capability the sandbox
 * drops); only a file whose metadata moved is read. Content to put back comes from git for tracked
 * files that were clean (their blob), and from a copy made at the start for every other file
 * (untracked, ignored, changed tracked ones), up to {@link COPY_LIMIT_BYTES}.
 */

/** Bytes of untracked, ignored or changed files copied at the start; beyond it a file is not copied. */
export const COPY_LIMIT_BYTES = 256 * 1024 * 1024;

export type EntryKind = "file" | "dir" | "link" | "other";

interface Entry {
  kind: EntryKind;
  mode: number;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  dev: bigint;
  /** A link's target. */
  target?: string;
  /** Where a file's content comes from when it must be put back; null: nowhere (not copied). */
  source?: { blob: string } | { copy: string } | null;
}

export interface TreeSnapshot {
  root: string;
  repo: HostRepo;
  entries: Map<string, Entry>;
  /** The folder holding the copies (outside anything the sandbox shows). */
  copies: string;
  objectFormat: "sha1" | "sha256";
  /** Bytes the copies could take (COPY_LIMIT_BYTES unless told). */
  copyLimit: number;
  /** What the snapshot took: files, bytes copied, files left uncopied (over the limit), milliseconds. */
  stats: { paths: number; copiedFiles: number; copiedBytes: number; uncopied: number; ms: number };
}

export type ChangeKind = "added" | "changed" | "removed";

export interface TreeChange {
  path: string;
  change: ChangeKind;
  /** What the path is now (added, changed) or was (removed). */
  kind: EntryKind;
}

function kindOf(d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  if (d.isSymbolicLink()) return "link";
  if (d.isDirectory()) return "dir";
  if (d.isFile()) return "file";
  return "other";
}

/** Every path under `root` (not following links; the top `.git` left out), with its lstat data. */
async function walk(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const visit = async (rel: string): Promise<void> => {
    let items: Dirent[];
    try {
      items = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return; // unreadable: its entry stands for it
    }
    for (const d of items) {
      if (rel === "" && d.name === ".git") continue;
      const path = rel === "" ? d.name : `${rel}/${d.name}`;
      const st = await lstat(join(root, path), { bigint: true }).catch(() => null);
      if (st === null) continue;
      const kind = kindOf(st);
      out.set(path, {
        kind,
        mode: Number(st.mode & 0o7777n),
        size: st.size,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        ino: st.ino,
        dev: st.dev,
        target: kind === "link" ? await readlink(join(root, path)).catch(() => "") : undefined,
      });
      if (kind === "dir") await visit(path);
    }
  };
  await visit("");
  return out;
}

/** Tracked files whose content is their index blob: no flag, no conflict, and git sees no change. */
async function cleanBlobs(repo: HostRepo): Promise<Map<string, { blob: string; mode: string }>> {
  const listed = await git(repo, ["ls-files", "-s", "-v", "-z"]);
  const changed = new Set(
    (await git(repo, ["diff-files", "--name-only", "-z", "--ignore-submodules=none"])).split("\0"),
  );
  const out = new Map<string, { blob: string; mode: string }>();
  for (const line of listed.split("\0")) {
    const m = /^H (100644|100755) ([0-9a-f]+) 0\t(.+)$/s.exec(line);
    if (m && !changed.has(m[3])) out.set(m[3], { blob: m[2], mode: m[1] });
  }
  return out;
}

/**
 * Records the tree at `root` (the person's repository, `repo` pinned for host git) before the agent
 * starts, copying into `copies` what git cannot give back.
 */
export async function takeSnapshot(
  root: string,
  repo: HostRepo,
  copies: string,
  copyLimit = COPY_LIMIT_BYTES,
): Promise<TreeSnapshot> {
  const started = Date.now();
  const format = (await runGit(repo, ["rev-parse", "--show-object-format"])).stdout.trim();
  const [entries, blobs] = await Promise.all([walk(root), cleanBlobs(repo)]);
  const stats = { paths: entries.size, copiedFiles: 0, copiedBytes: 0, uncopied: 0, ms: 0 };
  await mkdir(copies, { recursive: true });
  for (const [path, e] of entries) {
    if (e.kind !== "file") continue;
    const tracked = blobs.get(path);
    if (tracked && (tracked.mode === "100755") === (e.mode & 0o100) > 0) {
      e.source = { blob: tracked.blob };
      continue;
    }
    if (stats.copiedBytes + Number(e.size) > copyLimit) {
      e.source = null;
      stats.uncopied++;
      continue;
    }
    const copy = join(copies, String(stats.copiedFiles));
    const ok = await copyFile(join(root, path), copy, constants.COPYFILE_FICLONE).then(
      () => true,
      () => false,
    );
    e.source = ok ? { copy } : null;
    if (ok) {
      stats.copiedFiles++;
      stats.copiedBytes += Number(e.size);
    } else stats.uncopied++;
  }
  stats.ms = Date.now() - started;
  const objectFormat = format === "sha256" ? "sha256" : "sha1";
  return { root, repo, entries, copies, objectFormat, copyLimit, stats };
}

async function hashOf(path: string, prefix: string | null, algorithm: string): Promise<string> {
  const h = createHash(algorithm);
  if (prefix !== null) h.update(prefix);
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** Whether the file at `path` now (of `size` bytes, as it was) has the content the snapshot recorded. */
async function sameContent(snap: TreeSnapshot, path: string, was: Entry): Promise<boolean> {
  const src = was.source;
  if (!src) return false;
  const file = join(snap.root, path);
  try {
    if ("blob" in src) return (await hashOf(file, `blob ${was.size}\0`, snap.objectFormat)) === src.blob;
    return (await hashOf(file, null, "sha256")) === (await hashOf(src.copy, null, "sha256"));
  } catch {
    return false;
  }
}

async function differs(snap: TreeSnapshot, path: string, was: Entry, now: Entry): Promise<boolean> {
  if (was.kind !== now.kind || was.mode !== now.mode) return true;
  if (now.kind === "link") return was.target !== now.target;
  if (now.kind !== "file") return false; // a folder's own times change with what is in it
  if (was.size !== now.size) return true;
  const untouched =
    was.ino === now.ino && was.dev === now.dev && was.mtimeNs === now.mtimeNs && was.ctimeNs === now.ctimeNs;
  return !untouched && !(await sameContent(snap, path, was));
}

/** What differs between the tree now and the snapshot, by path (sorted). */
export async function compareTree(snap: TreeSnapshot): Promise<TreeChange[]> {
  const now = await walk(snap.root);
  const out: TreeChange[] = [];
  for (const [path, e] of now) {
    const was = snap.entries.get(path);
    if (!was) out.push({ path, change: "added", kind: e.kind });
    else if (await differs(snap, path, was, e)) out.push({ path, change: "changed", kind: e.kind });
  }
  for (const [path, e] of snap.entries)
    if (!now.has(path)) out.push({ path, change: "removed", kind: e.kind });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const mib = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB` : `${bytes} bytes`;

/** What undoing one change did: `restored`, `removed`, or why it could not be put back. */
export interface Undone {
  change: TreeChange;
  done: string;
}

/**
 * Puts `changes` back as the snapshot had them: what was added is removed (links themselves, never
 * followed), what changed or went is made again from the blob or the copy, with its mode and
 * modification time. Runs after the sandbox is gone, so nothing moves meanwhile; a path is only
 * written once everything above it is a folder the snapshot had.
 */
export async function undoChanges(snap: TreeSnapshot, changes: TreeChange[]): Promise<Undone[]> {
  const result = new Map<string, string>();
  const abs = (p: string) => join(snap.root, p);
  // 1. out with what is there now and should not be (added, or changed: made again below)
  for (const c of changes) {
    if (c.change === "removed") continue;
    const was = snap.entries.get(c.path);
    if (c.change === "changed" && was && was.kind === "dir" && c.kind === "dir") continue; // its mode only
    await rm(abs(c.path), { recursive: true, force: true });
    result.set(c.path, "removed");
  }
  // 2. in with what the snapshot had, parents first (sorted by path)
  for (const c of [...changes].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    if (c.change === "added") continue;
    const was = snap.entries.get(c.path) as Entry;
    const p = abs(c.path);
    await mkdir(dirname(p), { recursive: true });
    if (was.kind === "dir") {
      await mkdir(p, { recursive: true });
      await chmod(p, was.mode);
      result.set(c.path, "restored");
    } else if (was.kind === "link") {
      await symlink(was.target ?? "", p);
      result.set(c.path, "restored");
    } else if (was.kind === "file" && was.source) {
      const src = was.source;
      if ("blob" in src) await writeFile(p, await gitBlob(snap.repo, src.blob));
      else await copyFile(src.copy, p);
      await chmod(p, was.mode);
      const t = Number(was.mtimeNs / 1000n) / 1e6;
      await utimes(p, t, t);
      result.set(c.path, "restored");
    } else
      result.set(
        c.path,
        was.kind === "file"
          ? `removed: no copy of it was kept at the start (the copies' limit, ${mib(snap.copyLimit)}, was reached), so it cannot be put back`
          : "removed: a special file (pipe, socket, device) is not made again",
      );
  }
  return changes.map((change) => ({ change, done: result.get(change.path) ?? "restored" }));
}
