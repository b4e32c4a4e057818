import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceCommit } from "../../src/agent/source-commit.js";
import { versions } from "../../src/agent/versions.js";
import { packageRoot } from "../../src/package-root.js";
import { tempDir } from "../support/tmp.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("the commit patchloop runs from", () => {
  it("reads HEAD through a branch, through packed refs, detached and in a linked worktree; null outside a checkout", () => {
    const repo = tempDir();
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "a"), "a\n");
    git(repo, "add", "a");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
    const head = git(repo, "rev-parse", "HEAD");
    expect(sourceCommit(repo)).toBe(head);
    git(repo, "pack-refs", "--all");
    expect(sourceCommit(repo)).toBe(head);
    git(repo, "checkout", "-q", "--detach");
    expect(sourceCommit(repo)).toBe(head);
    // A linked worktree: .git is a file naming the worktree's folder; refs live in the main one.
    const linked = join(tempDir(), "linked");
    git(repo, "worktree", "add", "-q", "-b", "side", linked, "main");
    expect(sourceCommit(linked)).toBe(head);
    writeFileSync(join(linked, "b"), "b\n");
    git(linked, "add", "b");
    git(linked, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "b");
    expect(sourceCommit(linked)).toBe(git(linked, "rev-parse", "HEAD"));
    git(repo, "pack-refs", "--all");
    expect(sourceCommit(linked)).toBe(git(linked, "rev-parse", "HEAD"));
    const plain = tempDir();
    mkdirSync(join(plain, "x"));
    expect(sourceCommit(plain)).toBeNull();
  });

  it("is in versions() when patchloop runs from a checkout", () => {
    const root = packageRoot();
    let head: string | null = null;
    try {
      head = git(root, "rev-parse", "HEAD");
    } catch {
      head = null;
    }
    expect(versions().patchloop_commit).toBe(head ?? undefined);
  });
});
