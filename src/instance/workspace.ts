import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SwebenchInstance } from "../dataset/types.js";
import { gitOutput } from "../util/git-output.js";
import { ownerAlive, ownerLabel } from "../util/process-alive.js";
import { defaultHistoryCache, type History, historyUpTo } from "./history-cache.js";

/** A private checkout of an instance's repository at its base commit; `remove` deletes it. */
export interface Workspace {
  /** The repository root (a git repository whose HEAD is the base commit, detached). */
  dir: string;
  /**
   * The object stores the repository borrows (git alternates), read only: an environment that
   * shows the work tree must show these at the same paths for git to work (bwrap binds them).
   */
  objectDirs: string[];
  remove(): Promise<void>;
}

/** `owner/repo` -> `DIR/owner__repo`: the layout `--repos-dir` expects (one clone per repository). */
export function cloneDirFor(reposDir: string, repo: string): string {
  return join(resolve(reposDir), repo.replace("/", "__"));
}

const git: GitRunner = (cwd, args) => gitOutput(cwd, args);

/** What a checkout needs to know about a clone. */
interface CloneFacts {
  /** Absolute git directory (bare or not). */
  gitDir: string;
  /** `sha1` or `sha256`. */
  objectFormat: string;
}

const facts = new Map<string, Promise<CloneFacts>>();

/** Looks a clone up once per process (every spawn counts when dozens of instances start at once). */
function cloneFacts(clone: string): Promise<CloneFacts> {
  let found = facts.get(clone);
  if (!found) {
    found = git(clone, [
      "rev-parse",
      "--path-format=absolute",
      "--git-common-dir",
      "--show-object-format",
    ]).then((s) => {
      const [gitDir, objectFormat] = s.trim().split("\n");
      return { gitDir, objectFormat: objectFormat || "sha1" };
    });
    found.catch(() => facts.delete(clone));
    facts.set(clone, found);
  }
  return found;
}

/** How `createWorkspace` makes the checkout. */
export interface WorkspaceOptions {
  /** Root of the history cache (see history-cache.ts); default {@link defaultHistoryCache}. */
  historyCache?: string;
  /**
   * Put the work tree at `<root>/<instance id>` itself (a path that does not change from run to
   * run, so prompts and trajectories do not either), claimed for this process; when another live
   * process holds it, `<root>/<instance id>.2` and so on. Default: a fresh `<root>/<id>-XXXXXX/repo`.
   */
  stable?: boolean;
}

/** Where the claims of stable work trees are recorded: `<root>/.owners/<name>` holds the owner label. */
const OWNERS = ".owners";

/**
 * Claims `<root>/<name>` (or `<name>.2`, ...) for this process: made with mkdir, which only one
 * process can do; a folder whose recorded owner is dead (a killed run) is removed and claimed.
 */
async function claimStable(
  root: string,
  name: string,
): Promise<{ dir: string; release: () => Promise<void> }> {
  await mkdir(join(root, OWNERS), { recursive: true });
  if (!swept.has(root)) {
    swept.add(root);
    await sweepStable(root);
  }
  for (let n = 1; n < 1000; n++) {
    const entry = n === 1 ? name : `${name}.${n}`;
    const dir = join(root, entry);
    const owner = join(root, OWNERS, entry);
    try {
      await mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const label = await readFile(owner, "utf8").catch(() => "");
      // A folder without an owner file is being claimed right now, or was left before one was written.
      const stale = label ? ownerAlive(label) === false : Date.now() - (await mtimeMs(dir)) > 60_000;
      if (!stale) continue;
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      await rm(owner, { force: true });
      n--;
      continue;
    }
    await writeFile(owner, ownerLabel());
    return {
      dir,
      release: async () => {
        await rm(dir, { recursive: true, force: true, maxRetries: 3 });
        await rm(owner, { force: true });
      },
    };
  }
  throw new Error(`could not claim a work tree folder for ${name} under ${root}: 999 are in use`);
}

const swept = new Set<string>();

/** Removes the stable work trees under `root` whose owner is dead (runs killed before their cleanup). */
async function sweepStable(root: string): Promise<void> {
  const names = await readdir(join(root, OWNERS)).catch(() => [] as string[]);
  for (const entry of names) {
    const label = await readFile(join(root, OWNERS, entry), "utf8").catch(() => "");
    if (!label || ownerAlive(label) !== false) continue;
    await rm(join(root, entry), { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    await rm(join(root, OWNERS, entry), { force: true });
  }
}

async function mtimeMs(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.mtimeMs ?? 0;
}

/**
 * A repository at `dir` whose objects are the history's cache entries (git alternates): nothing is
 * copied and the clone is never written, so any number can be made at once. The few files of an
 * empty repository are written here rather than by `git init`: one process less per instance.
 */
async function borrowHistory(c: CloneFacts, history: History, dir: string): Promise<void> {
  const dotGit = join(dir, ".git");
  await mkdir(join(dotGit, "objects", "info"), { recursive: true });
  await mkdir(join(dotGit, "refs", "heads"), { recursive: true });
  await mkdir(join(dotGit, "refs", "tags"));
  const sha256 = c.objectFormat === "sha256";
  const config = [
    "[core]",
    `\trepositoryformatversion = ${sha256 ? 1 : 0}`,
    "\tfilemode = true",
    "\tbare = false",
    "\tlogallrefupdates = true",
    ...(sha256 ? ["[extensions]", "\tobjectformat = sha256"] : []),
  ];
  await Promise.all([
    writeFile(join(dotGit, "HEAD"), "ref: refs/heads/main\n"),
    writeFile(join(dotGit, "config"), `${config.join("\n")}\n`),
    writeFile(join(dotGit, "objects", "info", "alternates"), `${history.objectDirs.join("\n")}\n`),
    history.shallow.length > 0
      ? writeFile(join(dotGit, "shallow"), `${history.shallow.join("\n")}\n`)
      : undefined,
  ]);
}

/** Runs `git args` in `dir`; resolves its standard output or rejects with a readable Error. */
export type GitRunner = (dir: string, args: string[]) => Promise<string>;

/** A workspace whose repository exists but whose work tree is not checked out yet. */
export interface PreparedWorkspace extends Workspace {
  /** Checks out the base commit (detached), with `runGit` (default: git spawned from this process). */
  checkout(runGit?: GitRunner): Promise<void>;
}

/**
 * Makes a fresh repository under `root` for the row, without checking it out yet (see
 * {@link createWorkspace}); a caller with an environment at hand can run the checkout through it.
 */
export async function prepareWorkspace(
  reposDir: string,
  row: SwebenchInstance,
  root: string,
  options: WorkspaceOptions = {},
): Promise<PreparedWorkspace> {
  const clone = cloneDirFor(reposDir, row.repo);
  if (!existsSync(clone)) {
    throw new Error(
      `no clone of ${row.repo} at ${clone}: --repos-dir must hold one git clone per repository, named owner__repo ` +
        `(e.g. git clone https://github.com/${row.repo} ${clone})`,
    );
  }
  const c = await cloneFacts(clone).catch((err: Error) => {
    throw new Error(`${clone} is not a git repository: ${err.message}`);
  });
  const history = await historyUpTo(
    c.gitDir,
    row.repo.replace("/", "__"),
    row.base_commit,
    options.historyCache ?? defaultHistoryCache(),
  ).catch((err: Error) => {
    throw new Error(
      `cannot check out base commit ${row.base_commit} of ${row.instance_id} from ${clone}; ` +
        `fetch it there (git -C ${clone} fetch origin ${row.base_commit}). ${err.message}`,
    );
  });
  const name = row.instance_id.replace(/[^\w.-]/g, "_");
  let dir: string;
  let remove: () => Promise<void>;
  if (options.stable) {
    await mkdir(root, { recursive: true });
    const claim = await claimStable(root, name);
    dir = claim.dir;
    remove = claim.release;
  } else {
    const base = await mkdtemp(join(root, `${name}-`));
    dir = join(base, "repo");
    remove = () => rm(base, { recursive: true, force: true, maxRetries: 3 });
  }
  try {
    await borrowHistory(c, history, dir);
  } catch (err) {
    await remove();
    throw err;
  }
  const checkout = async (runGit: GitRunner = git) => {
    await runGit(dir, [
      "-c",
      "advice.detachedHead=false",
      "checkout",
      "-q",
      "--detach",
      history.commit,
    ]).catch((err: Error) => {
      throw new Error(
        `cannot check out base commit ${row.base_commit} of ${row.instance_id}: ${err.message}`,
      );
    });
  };
  return { dir, remove, checkout, objectDirs: history.objectDirs };
}

/**
 * Makes a fresh repository under `root` at the row's base commit (detached), with no branches,
 * tags or remotes and no object of a later commit: its objects are the cached history up to the
 * base commit (history-cache.ts), so the project's later commits (on SWE-bench, the fix) cannot be
 * reached with `git log --all` or `git cat-file --batch-all-objects`. Rejects with a readable
 * Error when the clone or the commit is missing.
 */
export async function createWorkspace(
  reposDir: string,
  row: SwebenchInstance,
  root: string,
  options: WorkspaceOptions = {},
): Promise<Workspace> {
  const ws = await prepareWorkspace(reposDir, row, root, options);
  try {
    await ws.checkout();
  } catch (err) {
    await ws.remove();
    throw err;
  }
  return { dir: ws.dir, remove: ws.remove, objectDirs: ws.objectDirs };
}
