import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { gitOutput } from "../util/git-output.js";

/**
 * The history of a repository up to one commit, as object stores a work tree can borrow through
 * git alternates without seeing anything newer.
 *
 * A work tree made straight from a full clone (alternates to it, or a local clone) lets the agent
 * read every later commit with `git log --all` or `git cat-file --batch-all-objects`: on SWE-bench,
 * the fix itself. The harness's images hold only the history up to the base commit; so do the work
 * trees made here. Each cache entry is one pack of the objects reachable from its commit but not
 * from an older entry that is an ancestor of it (its `parent`); a commit's history is its entry plus
 * the entries of its chain of parents, so the cache of a repository holds each object about once and
 * nothing newer than the commit it is asked for. Entries are written to a temporary folder and
 * renamed into place whole, so concurrent processes never see half an entry (two that build the
 * same entry at once keep one).
 *
 * Layout: `<root>/<owner__repo>/<commit>/objects/pack/pack-*.{pack,idx}` and `entry.json`
 * (`{commit, commits, chain}`: the commit, how many commits its history has, and the commits of the
 * entries it builds on, oldest first).
 */

/** Default cache root: `$PATCHLOOP_HISTORY_CACHE`, else `$XDG_CACHE_HOME/patchloop/history`, else `~/.cache/patchloop/history`. */
export function defaultHistoryCache(): string {
  if (process.env.PATCHLOOP_HISTORY_CACHE) return process.env.PATCHLOOP_HISTORY_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "patchloop", "history");
}

interface EntryFile {
  commit: string;
  commits: number;
  chain: string[];
  /** Commits of a shallow clone's boundary that lie in this history (their parents are missing). */
  shallow?: string[];
}

/** The object stores that together hold a commit's whole history (absolute `objects` folders, newest first). */
export interface History {
  commit: string;
  objectDirs: string[];
  /** The lines of the work tree's `.git/shallow` (empty unless the clone is shallow). */
  shallow: string[];
}

/** git in the clone; its listings of a large history are long, hence the generous cap. */
function git(cwd: string, args: string[], input?: string): Promise<string> {
  return gitOutput(cwd, args, { input, maxStdout: 512 * 1024 * 1024 });
}

function readEntry(dir: string): EntryFile | null {
  try {
    const e = JSON.parse(readFileSync(join(dir, "entry.json"), "utf8")) as EntryFile;
    if (typeof e.commit === "string" && Number.isInteger(e.commits) && Array.isArray(e.chain)) return e;
  } catch {
    // not an entry (yet): a folder being written, or damaged
  }
  return null;
}

const inFlight = new Map<string, Promise<History>>();

const HEX = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The history of `commit` from the clone at `gitDir`, built into the cache under `root/<repoKey>`
 * when it is not there yet. Rejects with a readable Error when the commit is not in the clone.
 */
export function historyUpTo(gitDir: string, repoKey: string, commit: string, root: string): Promise<History> {
  const key = `${root}\0${repoKey}\0${commit}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = buildHistory(gitDir, join(root, repoKey), commit);
    inFlight.set(key, pending);
    pending.catch(() => inFlight.delete(key));
  }
  return pending;
}

function historyOf(repoDir: string, entry: EntryFile): History {
  const dirs = [entry.commit, ...[...entry.chain].reverse()].map((c) => join(repoDir, c, "objects"));
  const lost = dirs.find((d) => !existsSync(d));
  if (lost) {
    throw new Error(
      `the history cache entry ${join(repoDir, entry.commit)} builds on ${lost}, which is gone; ` +
        `delete ${repoDir} and it is built again`,
    );
  }
  return { commit: entry.commit, objectDirs: dirs, shallow: entry.shallow ?? [] };
}

/** How old a `.building-*` folder must be before it counts as left by a killed process. */
const STALE_BUILD_MS = 6 * 3600 * 1000;

async function buildHistory(gitDir: string, repoDir: string, commitish: string): Promise<History> {
  const commit = (
    await git(gitDir, ["rev-parse", "--verify", "--end-of-options", `${commitish}^{commit}`]).catch(
      (err: Error) => {
        throw new Error(`commit ${commitish} is not in the clone ${gitDir}: ${err.message}`);
      },
    )
  ).trim();
  if (!HEX.test(commit)) throw new Error(`git rev-parse gave ${JSON.stringify(commit)} for ${commitish}`);
  const existing = readEntry(join(repoDir, commit));
  if (existing) return historyOf(repoDir, existing);

  // The commits of this history, to find the largest cached entry inside it.
  const commits = (await git(gitDir, ["rev-list", commit])).split("\n").filter(Boolean);
  const inHistory = new Set(commits);
  let parent: EntryFile | null = null;
  const names = existsSync(repoDir) ? readdirSync(repoDir) : [];
  for (const name of names) {
    if (name.startsWith(".building-")) {
      const age =
        Date.now() - (statSync(join(repoDir, name), { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_BUILD_MS) await rm(join(repoDir, name), { recursive: true, force: true });
      continue;
    }
    if (!inHistory.has(name)) continue;
    const e = readEntry(join(repoDir, name));
    if (e && (!parent || e.commits > parent.commits)) parent = e;
  }

  await mkdir(repoDir, { recursive: true });
  const tmp = await mkdtemp(join(repoDir, ".building-"));
  try {
    await mkdir(join(tmp, "objects", "pack"), { recursive: true });
    const revs = parent ? `${commit}\n^${parent.commit}\n` : `${commit}\n`;
    await git(gitDir, ["pack-objects", "--revs", "-q", join(tmp, "objects", "pack", "pack")], revs);
    const shallowFile = join(gitDir, "shallow");
    const shallow = existsSync(shallowFile)
      ? readFileSync(shallowFile, "utf8")
          .split("\n")
          .filter((c) => inHistory.has(c))
      : [];
    const entry: EntryFile = {
      commit,
      commits: commits.length,
      chain: parent ? [...parent.chain, parent.commit] : [],
      ...(shallow.length > 0 ? { shallow } : {}),
    };
    await writeFile(join(tmp, "entry.json"), `${JSON.stringify(entry)}\n`);
    try {
      await rename(tmp, join(repoDir, commit));
    } catch (err) {
      // Another process made the same entry first: use theirs.
      const theirs = readEntry(join(repoDir, commit));
      if (!theirs) throw err;
      return historyOf(repoDir, theirs);
    }
    return historyOf(repoDir, entry);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
