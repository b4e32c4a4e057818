import { type ProcessResult, runProcess } from "../util/run-process.js";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The person's repository as git on this machine must see it: its git folder and its work tree
 * given by path (GIT_DIR, GIT_WORK_TREE), never found by looking at `.git` in a folder, since the
 * agent may have rewritten that file (or planted a repository of its own) in a tree it could write.
 */
export interface HostRepo {
  gitDir: string;
  workTree: string;
}

/**
 * Settings laid over every config git reads here, so nothing a repository's config names is run:
 * no file-system monitor, no hooks, no submodule recursion (a submodule's own config would be read
 * and its monitor run), no status of submodules, no transport (a partial clone's lazy fetch).
 */
export const HOST_GIT_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.untrackedCache=false",
  "submodule.recurse=false",
  "diff.ignoreSubmodules=all",
  "status.submoduleSummary=false",
  "protocol.allow=never",
].flatMap((kv) => ["-c", kv]);

/** Seconds any git call here may take before it is killed (a huge file must not hang the run). */
export const HOST_GIT_TIMEOUT = 120;

/**
 * Runs git on this machine for the person's repository, never inside the task's environment:
 * the repository pinned (see {@link HostRepo}), the settings of {@link HOST_GIT_CONFIG}, and a
 * time limit. Never rejects; the caller reads `code`.
 */
export async function runGit(
  repo: HostRepo,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeout?: number } = {},
): Promise<GitResult> {
  const timeout = opts.timeout ?? HOST_GIT_TIMEOUT;
  const r = await runProcess("git", [...HOST_GIT_CONFIG, ...args], {
    cwd: repo.workTree,
    env: { ...process.env, ...opts.env, GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.workTree },
    input: opts.input ?? "",
    timeout,
    maxStdout: HOST_GIT_MAX_OUTPUT,
  });
  return hostResult(r, args, timeout);
}

/** Bytes of output a git call here may print before it is stopped. */
const HOST_GIT_MAX_OUTPUT = 512 * 1024 * 1024;

/** A run's result as the callers here read it: 124 when the time limit stopped git, 1 for any other stop. */
function hostResult(r: ProcessResult, args: string[], timeout: number): GitResult {
  const stdout = r.stdout.toString("utf8");
  if (r.timedOut) return { code: 124, stdout, stderr: `git ${args[0]} did not finish within ${timeout} s` };
  if (r.overflowed)
    return {
      code: 1,
      stdout,
      stderr: r.stderr || `git ${args[0]} printed more than ${HOST_GIT_MAX_OUTPUT} bytes`,
    };
  return { code: r.code < 0 || r.notStarted ? 1 : r.code, stdout, stderr: r.stderr };
}

/** git that must succeed: rejects with the command, the repository and git's own words. */
export async function git(
  repo: HostRepo,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeout?: number } = {},
): Promise<string> {
  const r = await runGit(repo, args, opts);
  if (r.code !== 0)
    throw new Error(
      `git ${args.join(" ")} (in ${repo.workTree}) failed: ${(r.stderr || `exit ${r.code}`).trim()}`,
    );
  return r.stdout;
}

/**
 * git in a folder before any agent ran (finding the repository from `--repo`): the same settings
 * and time limit, the repository found the usual way.
 */
export async function discoverGit(cwd: string, args: string[]): Promise<GitResult> {
  const r = await runProcess("git", [...HOST_GIT_CONFIG, ...args], {
    cwd,
    timeout: HOST_GIT_TIMEOUT,
    maxStdout: HOST_GIT_MAX_OUTPUT,
  });
  return hostResult(r, args, HOST_GIT_TIMEOUT);
}

/** A blob of the person's repository, as bytes (a file to put back as it was). */
export async function gitBlob(repo: HostRepo, oid: string): Promise<Buffer> {
  const r = await runProcess("git", [...HOST_GIT_CONFIG, "cat-file", "blob", oid], {
    cwd: repo.workTree,
    env: { ...process.env, GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.workTree },
    timeout: HOST_GIT_TIMEOUT,
    maxStdout: HOST_GIT_MAX_OUTPUT,
  });
  if (r.code !== 0 || r.timedOut || r.overflowed)
    throw new Error(
      `git cat-file blob ${oid} (in ${repo.workTree}) failed: ${r.stderr.trim() || `exit ${r.code}`}`,
    );
  return r.stdout;
}
